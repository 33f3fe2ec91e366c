import Foundation

/// An HTTP answer to the sync WebSocket's upgrade request other than `101 Switching
/// Protocols`, in words a person can act on.
///
/// Most such answers come from something that will answer the same next time: a reverse
/// proxy that does not pass the `Upgrade` and `Connection` fields on (openrealm-server
/// then answers `426`, saying so), a base URL whose path reaches another service (`404`),
/// a redirect, an app the server does not serve. Those are ``isPermanent``: the session
/// stops with a ``SyncError`` the app sees, instead of retrying quietly for ever. A
/// server error, a proxy whose server is down (`502`, `503`, `504`), a timeout (`408`)
/// or a rate limit (`429`) may pass, and the session retries after its backoff.
@_spi(SyncTransport) public struct UpgradeRefusal: Error, Sendable, CustomStringConvertible {
    /// `host:port` the request went to.
    let server: String
    let status: Int
    let reasonPhrase: String
    /// The answer's `Location` field, for a redirect.
    let location: String?
    /// What the answer's body says: the `error` of a JSON body, or the first line of a
    /// plain-text one; nil for an empty or HTML body.
    let detail: String?

    /// The most body bytes kept to find ``detail`` in.
    static let maxBodyBytes = 4096

    init(server: String, status: Int, reasonPhrase: String, location: String?, contentType: String?, body: [UInt8]) {
        self.server = server
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.location = location
        detail = Self.detail(contentType: contentType?.lowercased() ?? "", body: body)
    }

    /// Whether trying again cannot help until someone changes the server, a proxy or the
    /// app's base URL.
    package var isPermanent: Bool { !(status >= 500 || status == 408 || status == 429) }

    public var description: String {
        var text = "\(server) answered the sync WebSocket's upgrade request with HTTP \(status)"
            + (reasonPhrase.isEmpty ? "" : " \(reasonPhrase)") + " instead of 101 Switching Protocols"
        if let detail {
            text += ": \(detail)"
        } else if let location, (300..<400).contains(status) {
            text += ": it redirects to \(location); give the app that server's URL as its baseURL"
        } else if (200..<300).contains(status) || status == 426 {
            text += ": something between the app and openrealm-server (a reverse proxy) does not pass the "
                + "'Upgrade' and 'Connection' header fields on"
        } else if status == 404 {
            text += ": the app's baseURL does not lead to openrealm-server's routes"
        }
        return text
    }

    private static func detail(contentType: String, body: [UInt8]) -> String? {
        let bytes = Data(body.prefix(maxBodyBytes))
        if contentType.hasPrefix("application/json"),
           let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any],
           let error = object["error"] as? String ?? (object["error"] as? [String: Any])?["message"] as? String {
            return String(error.prefix(1024))
        }
        guard contentType.hasPrefix("text/plain") else { return nil }
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let printable = String(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(512).map(Character.init))
        return printable.isEmpty ? nil : printable
    }
}
