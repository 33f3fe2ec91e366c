import Foundation

/// The URLs `/location` answers: where clients reach the server's HTTP routes
/// (`hostname`) and its sync WebSocket (`ws_hostname`).
///
/// Behind a reverse proxy the server cannot know them (it sees `http://127.0.0.1:9090`
/// while clients use `https://sync.example.com`), so ``ServerConfiguration/publicURL``
/// says them. Without one they are made of the listening address: its scheme follows the
/// server's own TLS, an IPv6 address is put in brackets, and a wildcard address
/// (`0.0.0.0`, `::`), which no client can connect to, is replaced by the request's `Host`
/// field when that is a well-formed host and port.
struct PublicLocation: Sendable {
    var publicURL: URL?
    /// The address the server listens on.
    var host: String
    /// Whether the server itself serves TLS.
    var secure: Bool

    /// `(hostname, ws_hostname)` for a request that arrived on `port` naming `requestHost`.
    func urls(port: Int, requestHost: String?) -> (http: String, ws: String) {
        if let publicURL, let parts = URLComponents(url: publicURL, resolvingAgainstBaseURL: false), let host = parts.host {
            let https = parts.scheme?.lowercased() == "https"
            let authority = Self.bracketed(host) + (parts.port.map { ":\($0)" } ?? "")
            return ((https ? "https://" : "http://") + authority, (https ? "wss://" : "ws://") + authority)
        }
        var authority = "\(Self.bracketed(host)):\(port)"
        if ["0.0.0.0", "::", "[::]"].contains(host), let requestHost, Self.isAuthority(requestHost) {
            authority = requestHost
        }
        return ((secure ? "https://" : "http://") + authority, (secure ? "wss://" : "ws://") + authority)
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Whether `text` is `name[:port]` or `[v6]:port` with nothing a URL would misread.
    static func isAuthority(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 255 else { return false }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), IPAddress(String(text[text.index(after: text.startIndex)..<close])) != nil
            else { return false }
            let rest = text[text.index(after: close)...]
            return rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst()))
        }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 1 || isPort(parts[1]) else { return false }
        return !parts[0].isEmpty && parts[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
