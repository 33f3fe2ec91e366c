import Foundation
import OpenRealm

/// A user API key, as ``APIKeyAuth`` returns it.
///
/// ``key`` is only known in the key ``APIKeyAuth/createAPIKey(named:)`` returns: the
/// server keeps only a hash of it, so store it then; later fetches give it as nil.
public struct UserAPIKey: Sendable, Hashable {
    /// The key's id.
    public let objectId: ObjectId
    /// The name it was created with.
    public let name: String
    /// The key to log in with (``Credentials/userAPIKey(_:)``), only right after creation.
    public let key: String?
    /// Whether the key is disabled (it then does not log in).
    public let disabled: Bool

    /// Reads the server's JSON for a key.
    ///
    /// - Throws: ``AppError`` `.httpRequestFailed` naming the missing or bad field.
    init(json: Any?) throws {
        guard let object = json as? [String: Any] else {
            throw AppError(.httpRequestFailed, "An API key answer is not a JSON object: \(String(describing: json)).")
        }
        guard let id = object["_id"] as? String, let objectId = try? ObjectId(string: id) else {
            throw AppError(.httpRequestFailed, "An API key answer lacks a valid '_id': \(object["_id"] ?? "nothing").")
        }
        guard let name = object["name"] as? String else {
            throw AppError(.httpRequestFailed, "The API key answer for '\(id)' lacks 'name'.")
        }
        self.objectId = objectId
        self.name = name
        key = object["key"] as? String
        disabled = object["disabled"] as? Bool ?? false
    }
}
