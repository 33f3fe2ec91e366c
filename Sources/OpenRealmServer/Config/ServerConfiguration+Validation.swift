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
        for (name, value) in [("httpIdleTimeout", httpIdleTimeout), ("syncBindTimeout", syncBindTimeout),
                              ("syncPingInterval", syncPingInterval), ("syncCloseTimeout", syncCloseTimeout)]
        where !(value > 0 && value <= 86_400) {
            throw ServerError("\(name) \(value) must be more than 0 and at most 86400 seconds")
        }
    }
}
