import Foundation
import OpenRealm

/// The API keys of one user: create, list, enable, disable and delete them. A key logs
/// in as its user with `app.login(credentials: .userAPIKey(key))`, for a device or a
/// service that should not hold the user's password.
///
/// ```swift
/// let client = user.apiKeysAuth
/// let apiKey = try await client.createAPIKey(named: "build-server")
/// store(apiKey.key!)                        // shown only now
/// try await client.disableAPIKey(apiKey.objectId)
/// ```
///
/// Each call authenticates with the user's access token (refreshed when it has
/// expired). Anonymous users cannot have keys. A user sees only their own keys:
/// another user's key id is `.apiKeyNotFound`. Safe to use from any thread.
public struct APIKeyAuth: Sendable {
    let user: User

    private static let path = "/api/client/v2.0/auth/api_keys"

    /// Creates a key named `name` for the user.
    ///
    /// - Returns: the key, with ``UserAPIKey/key`` set (the only time it is).
    /// - Throws: ``AppError`` `.apiKeyAlreadyExists` for a name the user already gave a
    ///   key, `.badRequest` for an anonymous user, an empty name or a user with 20 keys,
    ///   `.providerDisabled` when the server turned API keys off, `.userNotLoggedIn`.
    public func createAPIKey(named name: String) async throws -> UserAPIKey {
        try UserAPIKey(json: try await send("POST", Self.path, json: ["name": name]).json)
    }

    /// Creates a key and calls `completion` with it or the error (on an arbitrary thread).
    @preconcurrency
    public func createAPIKey(named name: String, completion: @escaping @Sendable (UserAPIKey?, Error?) -> Void) {
        Task {
            do { completion(try await createAPIKey(named: name), nil) } catch { completion(nil, error) }
        }
    }

    /// The user's key `objectId` (without its key).
    ///
    /// - Throws: ``AppError`` `.apiKeyNotFound` when the user has no such key.
    public func fetchAPIKey(_ objectId: ObjectId) async throws -> UserAPIKey {
        try UserAPIKey(json: try await send("GET", "\(Self.path)/\(objectId.stringValue)").json)
    }

    /// Fetches a key and calls `completion` with it or the error.
    @preconcurrency
    public func fetchAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (UserAPIKey?, Error?) -> Void) {
        Task {
            do { completion(try await fetchAPIKey(objectId), nil) } catch { completion(nil, error) }
        }
    }

    /// The user's keys, oldest first (without their keys).
    public func fetchAPIKeys() async throws -> [UserAPIKey] {
        let reply = try await send("GET", Self.path)
        guard let list = reply.json as? [Any] else {
            throw AppError(.httpRequestFailed, "The API key list answer is not a JSON array: \(String(describing: reply.json)).")
        }
        return try list.map { try UserAPIKey(json: $0) }
    }

    /// Fetches the keys and calls `completion` with them or the error.
    @preconcurrency
    public func fetchAPIKeys(completion: @escaping @Sendable ([UserAPIKey]?, Error?) -> Void) {
        Task {
            do { completion(try await fetchAPIKeys(), nil) } catch { completion(nil, error) }
        }
    }

    /// Deletes the user's key `objectId`: it no longer logs in.
    ///
    /// - Throws: ``AppError`` `.apiKeyNotFound` when the user has no such key.
    public func deleteAPIKey(_ objectId: ObjectId) async throws {
        _ = try await send("DELETE", "\(Self.path)/\(objectId.stringValue)")
    }

    /// Deletes a key and calls `completion` with nil or the error.
    @preconcurrency
    public func deleteAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await deleteAPIKey(objectId); completion(nil) } catch { completion(error) } }
    }

    /// Enables the user's key `objectId` again.
    ///
    /// - Throws: ``AppError`` `.apiKeyNotFound` when the user has no such key.
    public func enableAPIKey(_ objectId: ObjectId) async throws {
        _ = try await send("PUT", "\(Self.path)/\(objectId.stringValue)/enable")
    }

    /// Enables a key and calls `completion` with nil or the error.
    @preconcurrency
    public func enableAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await enableAPIKey(objectId); completion(nil) } catch { completion(error) } }
    }

    /// Disables the user's key `objectId`: it does not log in until enabled again.
    ///
    /// - Throws: ``AppError`` `.apiKeyNotFound` when the user has no such key.
    public func disableAPIKey(_ objectId: ObjectId) async throws {
        _ = try await send("PUT", "\(Self.path)/\(objectId.stringValue)/disable")
    }

    /// Disables a key and calls `completion` with nil or the error.
    @preconcurrency
    public func disableAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await disableAPIKey(objectId); completion(nil) } catch { completion(error) } }
    }

    private func send(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> AppTransport.Reply {
        let token = try await user.validAccessToken()
        return try await user.appState.transport.send(method, path, json: json, bearer: token)
    }
}

extension User {
    /// The user's API keys.
    public var apiKeysAuth: APIKeyAuth { APIKeyAuth(user: self) }
}
