import Foundation
import ORCore

/// ORCore's timestamps for `Date`: one conversion for stored values (the local API's
/// `Date` properties) and query constants (``QueryValue/init(date:)``), so that they compare equal.
extension Date {
    /// Whole seconds from 1970-01-01 (where ORCore's timestamps count from) to
    /// 2001-01-01 (where a `Date`'s `timeIntervalSinceReferenceDate` counts from).
    private static let referenceDateSeconds: Int64 = 978_307_200

    /// The `Date` nearest the stored instant.
    ///
    /// A `Date` is a double counted from 2001, so the seconds are moved to that origin in
    /// integers and only the final sum is rounded: going through
    /// `timeIntervalSince1970` would round twice, on a coarser grid, and change the value.
    package init(orcTimestamp t: orc_timestamp) {
        let (whole, overflow) = t.seconds.subtractingReportingOverflow(Self.referenceDateSeconds)
        let seconds = overflow ? Double(t.seconds) - Double(Self.referenceDateSeconds) : Double(whole)
        self.init(timeIntervalSinceReferenceDate: seconds + Double(t.nanoseconds) / 1_000_000_000)
    }

    /// Whole seconds and nanoseconds with the same sign, as ORCore stores them: the
    /// nanosecond nearest the `Date`, so that every `Date` whose double is coarser than a
    /// nanosecond (every one more than about 97 days from 2001-01-01, `Date()` among them)
    /// reads back exactly. The split into whole seconds and a fraction is exact in
    /// floating point; only the fraction's nanoseconds are rounded.
    package var orcTimestamp: orc_timestamp {
        let interval = timeIntervalSinceReferenceDate
        guard interval.isFinite else { return orc_timestamp(seconds: interval > 0 ? Int64.max : Int64.min, nanoseconds: 0) }
        let clamped = max(min(interval, 9.2e18), -9.2e18)
        let whole = clamped.rounded(.towardZero)
        var seconds = Int64(whole) + Self.referenceDateSeconds
        var nanos = Int64(((clamped - whole) * 1_000_000_000).rounded())
        // Carry a rounded-up fraction, then give the nanoseconds the sign of the seconds
        // (moving the origin can flip the sign of the seconds but not of the fraction).
        if nanos >= 1_000_000_000 { seconds += 1; nanos -= 1_000_000_000 }
        if nanos <= -1_000_000_000 { seconds -= 1; nanos += 1_000_000_000 }
        if seconds > 0 && nanos < 0 { seconds -= 1; nanos += 1_000_000_000 }
        if seconds < 0 && nanos > 0 { seconds += 1; nanos -= 1_000_000_000 }
        return orc_timestamp(seconds: seconds, nanoseconds: Int32(nanos))
    }
}
