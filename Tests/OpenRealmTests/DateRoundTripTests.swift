import Foundation
import RealmSwift
import XCTest
import OpenRealmTestSupport

/// A model with a `Date` in every place one can be stored.
final class DatedEvent: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var date: Date
    @Persisted var optionalDate: Date?
    @Persisted var dates: List<Date>
    @Persisted var any: AnyRealmValue
}

/// The model of `Fixtures/dates-format-3.realm`, written by the build before dates were
/// converted from `timeIntervalSinceReferenceDate`.
final class StoredDate: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var date: Date
    @Persisted var optionalDate: Date?
    @Persisted var any: AnyRealmValue
}

/// `Date` values read back exactly as they were stored, wherever they are stored, and
/// files written before keep reading back what they did.
final class DateRoundTripTests: XCTestCase {
    /// Dates as apps make them: now, now plus fractions, and random instants from 1900 to
    /// 2100 with every bit of the double used.
    private func sampleDates(count: Int) -> [Date] {
        var generator = SplitMix64(seed: 2026)
        var dates = [Date(), Date().addingTimeInterval(0.000_123), Date().addingTimeInterval(-0.001), Date(timeIntervalSinceNow: -86_400 * 365.25 * 30),
                     Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1.5), Date(timeIntervalSince1970: -1.5),
                     Date(timeIntervalSince1970: 1_700_000_000.123_456_789), .distantPast, .distantFuture]
        for _ in 0..<count {
            // Whole seconds from 1900 to 2100 and a fraction with all 53 bits: the sum has
            // random low bits, as `Date()` and date arithmetic make them.
            let seconds = Double(Int64(generator.next() % 6_311_433_600) - 3_187_296_000)
            let fraction = Double(generator.next() >> 11) / Double(1 << 53)
            let date = Date(timeIntervalSinceReferenceDate: seconds + fraction)
            // Within about 97 days of 2001-01-01 a Date's double is finer than the
            // nanoseconds a realm keeps (as in the Realm SDK): those are not expected back.
            if abs(date.timeIntervalSinceReferenceDate) > 8_400_000 { dates.append(date) }
        }
        return dates
    }

    func testDatesReadBackExactlyInEveryKindOfProperty() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([DatedEvent.self]))
        let dates = sampleDates(count: 2_000)
        try realm.write {
            for (i, date) in dates.enumerated() {
                let event = DatedEvent()
                event.id = i
                event.date = date
                event.optionalDate = date
                event.dates.append(objectsIn: [date, date])
                event.any = .date(date)
                realm.add(event)
            }
        }
        var mismatches: [String] = []
        for (i, date) in dates.enumerated() {
            let event = try XCTUnwrap(realm.object(ofType: DatedEvent.self, forPrimaryKey: i))
            let read: [Date?] = [event.date, event.optionalDate, event.dates.first, event.dates.last, event.any.dateValue]
            for value in read where value != date {
                mismatches.append("\(date.timeIntervalSinceReferenceDate) read back as \(String(describing: value?.timeIntervalSinceReferenceDate))")
            }
        }
        XCTAssertEqual(mismatches.count, 0, "\(mismatches.count) dates changed, e.g. \(mismatches.prefix(3))")
    }

    func testAStoredDateIsFoundByQueryingForItself() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([DatedEvent.self]))
        let dates = Array(sampleDates(count: 200).prefix(100))
        try realm.write {
            for (i, date) in dates.enumerated() { realm.add(DatedEvent(value: ["id": i, "date": date])) }
        }
        for (i, date) in dates.enumerated() {
            XCTAssertEqual(realm.objects(DatedEvent.self).where { $0.date == date }.map(\.id), [i])
            XCTAssertEqual(realm.objects(DatedEvent.self).filter("date == %@", date).first?.id, i)
        }
        let latest = try XCTUnwrap(dates.max())
        XCTAssertEqual(realm.objects(DatedEvent.self).max(ofProperty: "date") as Date?, latest)
    }

    func testADateSurvivesClosingAndReopeningTheFile() throws {
        let configuration = try makeFileConfiguration([DatedEvent.self])
        let now = Date()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(DatedEvent(value: ["id": 1, "date": now, "optionalDate": now])) }
            realm.invalidate()
        }
        let realm = try Realm(configuration: configuration)
        let event = try XCTUnwrap(realm.object(ofType: DatedEvent.self, forPrimaryKey: 1))
        XCTAssertEqual(event.date, now)
        XCTAssertEqual(event.optionalDate, now)
        XCTAssertEqual(event.date.timeIntervalSinceReferenceDate.bitPattern, now.timeIntervalSinceReferenceDate.bitPattern)
    }

    func testStoredDatesCompareWithNanosecondTimestampsInQueries() throws {
        let realm = try Realm(configuration: makeInMemoryConfiguration([DatedEvent.self]))
        // 2024-01-31 10:00:00.5 UTC, exact in a Date.
        let date = Date(timeIntervalSince1970: 1_706_695_200.5)
        try realm.write { realm.add(DatedEvent(value: ["id": 1, "date": date])) }
        let events = realm.objects(DatedEvent.self)
        XCTAssertEqual(events.filter("date == 2024-01-31@10:00:00:500000000").count, 1)
        XCTAssertEqual(events.filter("date > 2024-01-31@10:00:00:499999999").count, 1)
        XCTAssertEqual(events.filter("date < 2024-01-31@10:00:00:500000001").count, 1)
        XCTAssertEqual(events.filter("date > 2024-01-31@10:00:00:500000000").count, 0)
        XCTAssertEqual(events.filter("date == T1706695200:500000000").count, 1)
        XCTAssertEqual(events.first?.date, date)
    }

    /// `Fixtures/dates-format-3.realm` holds 511 dates (now, random instants 1900-2100,
    /// edge values) written by the build that converted through `timeIntervalSince1970`;
    /// `dates-format-3.txt` has the bit pattern that build read back for each. Every
    /// date more than ~97 days from 2001-01-01 reads back the same bits now; nearer
    /// dates read back the stored nanoseconds more exactly than that build did.
    func testDatesWrittenByEarlierBuildsReadBackAsTheyDid() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("dates.realm")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("dates-format-3.realm"), to: file)
        let expected = try String(contentsOf: fixtures.appendingPathComponent("dates-format-3.txt"), encoding: .utf8)
            .split(separator: "\n").map { line -> (Int, Double) in
                let fields = line.split(separator: " ")
                return (Int(fields[0])!, Double(bitPattern: UInt64(fields[1], radix: 16)!))
            }
        XCTAssertEqual(expected.count, 511)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: file, objectTypes: [StoredDate.self]))
        var compared = 0
        for (id, before) in expected {
            let object = try XCTUnwrap(realm.object(ofType: StoredDate.self, forPrimaryKey: id))
            let now = object.date.timeIntervalSinceReferenceDate
            XCTAssertEqual(object.optionalDate, object.date)
            XCTAssertEqual(object.any.dateValue, object.date)
            if abs(before) > 8_400_000 {
                XCTAssertEqual(now.bitPattern, before.bitPattern, "object \(id): \(before) now reads \(now)")
                compared += 1
            } else {
                XCTAssertEqual(now, before, accuracy: 1e-6, "object \(id)")
            }
        }
        XCTAssertGreaterThan(compared, 490)
    }
}
