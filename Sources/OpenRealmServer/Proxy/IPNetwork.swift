#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16), parsed strictly with `inet_pton`.
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket shows an
/// IPv4 peer) is the IPv4 address: one client has one address whichever socket it came
/// through.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, network order.
    let bytes: [UInt8]

    /// Parses dotted-quad IPv4 (no leading zeros, no shorthand) or IPv6 text without a
    /// zone (`%eth0`); nil for anything else.
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        bytes = all[0..<12].elementsEqual(Self.mappedPrefix) ? Array(all[12...]) : all
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// `::ffff:0:0/96`, the IPv4-mapped IPv6 addresses.
    static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

    var isIPv4: Bool { bytes.count == 4 }

    /// The canonical text (`inet_ntop`): `192.0.2.1`, `2001:db8::1`.
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = isIPv4 ? AF_INET : AF_INET6
        guard copy.withUnsafeMutableBytes({ inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }) != nil else {
            return bytes.map { String($0) }.joined(separator: ".")
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A network in CIDR notation — `10.0.0.0/8`, `192.0.2.7/32`, `fd00::/8` — or one
/// address (`127.0.0.1`, `::1`): the reverse proxies the server trusts
/// (``ServerConfiguration/trustedProxies``, `--trusted-proxy`).
///
/// Parsed strictly, so that a typo cannot trust more than was meant: the address must be
/// one `inet_pton` accepts, the prefix length a decimal number within the family's bits,
/// and the address must have no bits set past the prefix (`10.0.0.1/8` is refused,
/// naming `10.0.0.0/8`: it is either a typo or a misunderstanding).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address, zero past the prefix.
    let address: IPAddress
    /// The prefix length in bits (0...32 for IPv4, 0...128 for IPv6).
    let prefixLength: Int

    /// Parses `address/prefix` or a single address.
    ///
    /// - Throws: ``ServerError`` naming the text and what is wrong with it.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else {
            throw ServerError("trusted proxy '\(text)': '\(parts[0])' is not an IPv4 or IPv6 address "
                + "(write a network as 10.0.0.0/8 or fd00::/8, one address as 192.0.2.7 or ::1)")
        }
        // Bits as written: an IPv4-mapped address written in IPv6 has 128.
        let bits = parts[0].contains(":") ? 128 : 32
        var prefixLength = bits
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let length = Int(digits), length <= bits else {
                throw ServerError("trusted proxy '\(text)': the prefix length '\(digits)' must be a number from 0 to \(bits)")
            }
            prefixLength = length
        }
        // A mapped address given as IPv6 keeps its prefix within the IPv4 part.
        if address.isIPv4 && parts[0].contains(":") {
            guard prefixLength >= 96 || parts.count == 1 else {
                throw ServerError("trusted proxy '\(text)': an IPv4-mapped network needs a prefix of at least 96 bits")
            }
            prefixLength = parts.count == 1 ? 32 : prefixLength - 96
        }
        let network = Self.masked(address, prefixLength)
        guard network == address else {
            throw ServerError("trusted proxy '\(text)': the address has bits set past its /\(prefixLength) prefix; "
                + "the network is \(network)/\(prefixLength)")
        }
        self.address = network
        self.prefixLength = prefixLength
    }

    /// Whether `candidate` is in the network (an IPv4 address is never in an IPv6 network).
    func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && Self.masked(candidate, prefixLength) == address
    }

    /// `address/prefix`, canonical (`10.0.0.0/8`, `fd00::/8`).
    public var description: String { "\(address)/\(prefixLength)" }

    private static func masked(_ address: IPAddress, _ prefixLength: Int) -> IPAddress {
        IPAddress(bytes: address.bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, prefixLength - index * 8))
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        })
    }
}
