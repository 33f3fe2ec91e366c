import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns the errors of binding the listening socket into messages a person can act on
/// (swift-nio reports them as `bind(descriptor:ptr:bytes:): Address already in use
/// (errno: 98)`).
enum ListenFailure {
    /// `error` explained when it is a failure to listen on `host:port` (given by the
    /// command line's `option`); any other error as it is.
    static func explain(_ error: Error, host: String, port: Int, option: String = "--port") -> Error {
        if let error = error as? SocketAddressError, case .unknown = error {
            return ServerError("cannot listen on \(host):\(port): the host '\(host)' does not resolve to an address")
        }
        guard let error = error as? IOError else { return error }
        let address = "\(host):\(port)"
        switch error.errnoCode {
        case EADDRINUSE:
            let owner = PortOwner.describe(port: port).map { " by \($0)" } ?? ""
            return ServerError("cannot listen on \(address): the port is in use\(owner); stop it or choose another \(option)")
        case EACCES:
            return ServerError("cannot listen on \(address): permission denied (ports below 1024 need privileges, e.g. CAP_NET_BIND_SERVICE)")
        case EADDRNOTAVAIL:
            return ServerError("cannot listen on \(address): '\(host)' is not an address of this machine")
        default:
            return ServerError("cannot listen on \(address): \(String(cString: strerror(error.errnoCode)))")
        }
    }
}
