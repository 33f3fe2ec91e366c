import Foundation
import Synchronization

/// The app's users and tokens on disk (`<root>/<app id>/users.json`), so that a user who
/// logged in once can open synced realms offline after the process restarts.
///
/// Written whole, atomically, after every change; read once when the app's state is
/// first made in a process.
struct UserCache: Codable, Sendable {
    /// Whether a cached user is logged in (the JSON strings `loggedIn`, `loggedOut`).
    enum LoginState: String, Codable, Sendable {
        case loggedIn
        case loggedOut
    }

    struct Entry: Codable, Sendable, Equatable {
        var id: String
        var provider: String
        var accessToken: String?
        var refreshToken: String?
        var deviceId: String?
        var email: String?
        var state: LoginState
        var loggedInAt: Double
    }

    var users: [Entry] = []
    var currentUserId: String?

    static func load(from url: URL) -> UserCache {
        guard let data = try? Data(contentsOf: url), let cache = try? JSONDecoder().decode(UserCache.self, from: data) else {
            return UserCache()
        }
        return cache
    }

    func save(to url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw AppError(.unknown, "Writing the user cache '\(url.path)' failed: \(error.localizedDescription)")
        }
    }
}

/// The claims of a JWT that the client reads (it never verifies: the server does).
enum JWTClaims {
    /// The `exp` claim (seconds since 1970) of a token, nil when it cannot be read.
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let exp = object["exp"] as? Double else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}
