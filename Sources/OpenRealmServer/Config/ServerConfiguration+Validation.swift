import Foundation

extension ServerConfiguration {
    /// Checks the values a person types on the command line before anything starts, so
    /// that a bad one is refused with its name rather than misread (a port past 65535
    /// used to wrap around to another port).
    ///
    /// - Throws: ``ServerError`` naming the option and the allowed range.
    public func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ServerError("port \(port) is out of range: use 1–65535, or 0 for any free port")
        }
        guard !host.isEmpty else { throw ServerError("the host to listen on is empty") }
        if app == nil && !allowRemoteDevelopment && !Self.isLoopback(host) {
            throw ServerError("development mode (no --config) listens on a loopback address only, not '\(host)': "
                + "any client may create apps and declare their schema. Give an app configuration with --config, "
                + "or --allow-remote-development to serve development mode on '\(host)' anyway")
        }
        guard maxDevelopmentApps > 0 else { throw ServerError("maxDevelopmentApps \(maxDevelopmentApps) must be at least 1") }
        guard syncQueryConcurrency > 0 else { throw ServerError("syncQueryConcurrency \(syncQueryConcurrency) must be at least 1") }
        try validateMetricsAddress()
        for (name, value) in [("httpIdleTimeout", httpIdleTimeout), ("syncBindTimeout", syncBindTimeout),
                              ("syncPingInterval", syncPingInterval), ("syncCloseTimeout", syncCloseTimeout)]
        where !(value > 0 && value <= 86_400) {
            throw ServerError("\(name) \(value) must be more than 0 and at most 86400 seconds")
        }
        if let publicURL { try Self.validatePublicURL(publicURL) }
    }

    /// A public URL names a server root: `/location` answers it and clients add the
    /// routes' paths to it, so a path, query or credentials would be lost or misused.
    static func validatePublicURL(_ url: URL) throws {
        let text = url.absoluteString
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw ServerError("the public URL '\(text)' (--public-url) must start with https:// (or http://)")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw ServerError("the public URL '\(text)' (--public-url) has no host name")
        }
        guard parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil,
              parts.path.isEmpty || parts.path == "/" else {
            throw ServerError("the public URL '\(text)' (--public-url) must be the server's root, "
                + "scheme://host[:port] with no path, query or user: the server's routes are at the root")
        }
    }

    /// Whether `host` names a loopback address (`localhost`, 127.0.0.0/8, `::1`).
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The metrics port is in range, and is not the main port on the same address;
    /// a metrics host comes with a metrics port.
    private func validateMetricsAddress() throws {
        guard let metricsPort else {
            if metricsHost != nil { throw ServerError("a metrics host is given without a metrics port: add --metrics-port (metricsPort)") }
            return
        }
        guard (0...65_535).contains(metricsPort) else {
            throw ServerError("metrics port \(metricsPort) is out of range: use 1–65535, or 0 for any free port")
        }
        guard metricsHost?.isEmpty != true else { throw ServerError("the host to serve metrics on is empty") }
        if metricsPort != 0, metricsPort == port, (metricsHost ?? host) == host {
            throw ServerError("metrics port \(metricsPort) is the server's own port: give --metrics-port another one, or leave it out to serve /metrics on the main port")
        }
    }
}
