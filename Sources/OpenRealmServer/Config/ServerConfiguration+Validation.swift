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
        try validateMetricsAddress()
        for (name, value) in [("httpIdleTimeout", httpIdleTimeout), ("syncBindTimeout", syncBindTimeout),
                              ("syncPingInterval", syncPingInterval), ("syncCloseTimeout", syncCloseTimeout)]
        where !(value > 0 && value <= 86_400) {
            throw ServerError("\(name) \(value) must be more than 0 and at most 86400 seconds")
        }
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
