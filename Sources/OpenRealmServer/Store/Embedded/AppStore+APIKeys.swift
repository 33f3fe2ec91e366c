import Foundation
import OpenRealmWire

extension AppStore {
    /// The most keys a user may have (``StorageConventions/maxAPIKeysPerUser``).
    static let maxAPIKeysPerUser = StorageConventions.maxAPIKeysPerUser

    /// The SHA-256 of an API key, as stored.
    static func apiKeyHash(_ key: String) -> String { StorageConventions.apiKeyHash(key) }

    /// The SHA-256 of `text`'s UTF-8 (``StorageConventions/sha256Hex(_:)``).
    package static func sha256Hex(_ text: String) -> String { StorageConventions.sha256Hex(text) }

    package func createAPIKey(id: String, userId: String, name: String, keyHash: String, limit: Int) throws -> APIKeyCreation {
        try environment.write { txn -> APIKeyCreation in
            let mine = try Self.apiKeys(txn, userId: userId)
            if mine.contains(where: { $0.name == name }) { return .nameTaken }
            guard mine.count < limit else { return .tooMany }
            let createdAt = Self.nowMilliseconds
            try txn.insertRow("__api_keys", [
                "_id": .string(id), "userId": .string(userId), "name": .string(name), "keyHash": .string(keyHash),
                "disabled": .bool(false), "createdAt": .int(createdAt),
            ])
            try txn.insertRow("__api_key_hashes", ["_id": .string(keyHash), "keyId": .string(id)])
            return .created(APIKeyRecord(id: id, userId: userId, name: name, keyHash: keyHash, disabled: false, createdAt: createdAt))
        }
    }

    package func apiKeys(userId: String?) throws -> [APIKeyRecord] {
        try environment.read { txn in try Self.apiKeys(txn, userId: userId) }
    }

    /// The key `id`, or nil.
    package func apiKey(id: String) throws -> APIKeyRecord? {
        try environment.read { txn in try Self.apiKey(txn, id: id) }
    }

    /// The key whose SHA-256 is `keyHash`, or nil.
    package func apiKey(hash keyHash: String) throws -> APIKeyRecord? {
        try environment.read { txn -> APIKeyRecord? in
            guard let row = try txn.readRow("__api_key_hashes", .string(keyHash)), let id = row.string("keyId") else { return nil }
            return try Self.apiKey(txn, id: id)
        }
    }

    /// Enables or disables the key `id`; nothing when it does not exist.
    package func setAPIKey(id: String, disabled: Bool) throws {
        try environment.write { txn in
            if try txn.readRow("__api_keys", .string(id)) != nil {
                try txn.updateRow("__api_keys", .string(id), ["disabled": .bool(disabled)])
            }
        }
    }

    /// Deletes the key `id`; nothing when it does not exist.
    package func deleteAPIKey(id: String) throws {
        try environment.write { txn in try Self.deleteAPIKey(txn, id: id) }
    }

    static func deleteAPIKey(_ txn: StoreTransaction, id: String) throws {
        guard let key = try apiKey(txn, id: id) else { return }
        try txn.deleteRow("__api_key_hashes", .string(key.keyHash))
        try txn.deleteRow("__api_keys", .string(id))
    }

    /// The keys of `userId` (of every user when nil), oldest first.
    static func apiKeys(_ txn: StoreTransaction, userId: String?) throws -> [APIKeyRecord] {
        try txn.allRows("__api_keys").filter { userId == nil || $0.string("userId") == userId }.compactMap(record)
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    private static func apiKey(_ txn: StoreTransaction, id: String) throws -> APIKeyRecord? {
        try txn.readRow("__api_keys", .string(id)).flatMap(record)
    }

    private static func record(_ row: [String: WireValue]) -> APIKeyRecord? {
        guard let id = row.string("_id"), let userId = row.string("userId") else { return nil }
        return APIKeyRecord(id: id, userId: userId, name: row.string("name") ?? "", keyHash: row.string("keyHash") ?? "",
                            disabled: row.bool("disabled") ?? true, createdAt: row.int("createdAt") ?? 0)
    }
}
