import Foundation
import Hummingbird

/// Which address a request comes from when reverse proxies stand in front of the server
/// (``ServerConfiguration/trustedProxies``): the login rate limits key on it and the sync
/// connection's log lines carry it.
///
/// A peer outside every trusted network is the client, whatever `X-Forwarded-For` says:
/// anyone can send the header. From a trusted peer, `X-Forwarded-For` (every field of
/// that name, in order, comma-separated) is read from the right — each proxy appends the
/// address it received the request from — and the client is the right-most address not
/// itself trusted. When every address is trusted, the left-most is the client; an entry
/// that is not an address (`unknown`, garbage) ends the walk at the trusted address to its
/// right, since nothing left of it can be vouched for.
struct ForwardedClient: Sendable {
    let trustedProxies: [IPNetwork]

    /// The client's address as text, or nil when the peer has none (a Unix socket).
    ///
    /// - Parameters:
    ///   - peer: the TCP peer's address text (`SocketAddress.ipAddress`).
    ///   - forwardedFor: the values of the request's `X-Forwarded-For` fields, in order.
    func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer else { return nil }
        guard var client = IPAddress(peer) else { return peer }
        guard isTrusted(client) else { return client.description }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let address = Self.address(ofHop: hop.trimmingCharacters(in: .whitespaces)) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client.description
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// An `X-Forwarded-For` entry's address: `192.0.2.1`, `2001:db8::1`, and the forms
    /// with a port some proxies write (`192.0.2.1:4711`, `[2001:db8::1]:4711`).
    static func address(ofHop hop: String) -> IPAddress? {
        if let address = IPAddress(hop) { return address }
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            let rest = hop[hop.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst())) else { return nil }
            return IPAddress(String(hop[hop.index(after: hop.startIndex)..<close]))
        }
        let parts = hop.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, isPort(parts[1]),
              let address = IPAddress(String(parts[0])), address.isIPv4 else { return nil }
        return address
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// Sets each request's ``ServerRequestContext/clientIP`` through ``ForwardedClient``,
/// before the routes see it.
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let resolver: ForwardedClient

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let forwardedFor = request.headers.filter { $0.name.canonicalName == "x-forwarded-for" }.map(\.value)
        context.clientIP = resolver.clientAddress(peer: context.remoteAddress?.ipAddress, forwardedFor: forwardedFor)
        return try await next(request, context)
    }
}
