/// A point in time as it travels: seconds and nanoseconds since 1970-01-01 00:00 UTC,
/// as ORCore stores timestamps.
///
/// `nanoseconds` is in -999,999,999 ... 999,999,999 and has the sign of `seconds` (either
/// sign when `seconds` is 0). The encoder refuses and the decoder rejects other values.
public struct WireTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since the epoch.
    public var seconds: Int64
    /// The fraction, in nanoseconds, with the sign of `seconds`.
    public var nanoseconds: Int32

    /// A timestamp of `seconds` and `nanoseconds` since the epoch.
    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Whether `nanoseconds` is in range and has the sign of `seconds`.
    public var isValid: Bool {
        guard nanoseconds > -1_000_000_000 && nanoseconds < 1_000_000_000 else { return false }
        if seconds > 0 { return nanoseconds >= 0 }
        if seconds < 0 { return nanoseconds <= 0 }
        return true
    }

    /// `seconds.nanoseconds`, for messages.
    public var description: String { "\(seconds)s\(nanoseconds)ns" }

    public static func < (a: WireTimestamp, b: WireTimestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
