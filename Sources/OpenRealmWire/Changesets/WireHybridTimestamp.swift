/// A hybrid logical clock reading: the time a changeset was made, as its origin's clock
/// saw it, made monotonic by a counter.
///
/// A client takes `max(now, last.milliseconds)` as the physical part and bumps the
/// counter when the physical part did not advance; on every download it moves its clock
/// past the server changesets' timestamps. The server orders concurrent writes to one
/// property by (timestamp, origin file identity): the later write wins.
public struct WireHybridTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00 UTC.
    public var milliseconds: UInt64
    /// The logical counter, for several readings within one millisecond.
    public var counter: UInt32

    /// A reading of `milliseconds` and `counter`.
    public init(milliseconds: UInt64, counter: UInt32 = 0) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// The next reading after `self` given the physical clock `now` (milliseconds since
    /// the epoch): `now` with counter 0 when the clock advanced, else `self` with the
    /// counter incremented (wrapping into the next millisecond).
    public func advanced(to now: UInt64) -> WireHybridTimestamp {
        if now > milliseconds { return WireHybridTimestamp(milliseconds: now) }
        if counter == UInt32.max { return WireHybridTimestamp(milliseconds: milliseconds &+ 1) }
        return WireHybridTimestamp(milliseconds: milliseconds, counter: counter + 1)
    }

    /// The reading after `self` that also follows `remote`, a reading received from
    /// another peer, given the physical clock `now`: the largest of the three
    /// milliseconds, with a counter above every counter at those milliseconds.
    ///
    /// A client applies it to the timestamp of every changeset it downloads, so that
    /// its next local changeset is ordered after everything it has seen.
    public func receiving(_ remote: WireHybridTimestamp, now: UInt64) -> WireHybridTimestamp {
        let top = Swift.max(milliseconds, remote.milliseconds, now)
        var counter: UInt32
        switch (top == milliseconds, top == remote.milliseconds) {
        case (true, true): counter = Swift.max(self.counter, remote.counter)
        case (true, false): counter = self.counter
        case (false, true): counter = remote.counter
        case (false, false): return WireHybridTimestamp(milliseconds: top)
        }
        if counter == UInt32.max { return WireHybridTimestamp(milliseconds: top &+ 1) }
        counter += 1
        return WireHybridTimestamp(milliseconds: top, counter: counter)
    }

    public var description: String { "\(milliseconds).\(counter)" }

    public static func < (a: WireHybridTimestamp, b: WireHybridTimestamp) -> Bool {
        (a.milliseconds, a.counter) < (b.milliseconds, b.counter)
    }
}
