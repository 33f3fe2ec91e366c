import Dispatch
import Foundation
import OpenRealm
import XCTest

/// `@ThreadSafe` properties: resolved in the reading thread's realm on every read.
final class ThreadSafeTests: XCTestCase {
    final class Holder: @unchecked Sendable {
        @ThreadSafe var note: IdentifiedNote?
        @ThreadSafe var notes: Results<IdentifiedNote>?
    }

    /// Runs `body` on a new thread and waits for it.
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
    }

    func testAnObjectAndResultsReadFromAnotherThreadAsOftenAsWanted() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let realm = try Realm(configuration: config)
        let note = IdentifiedNote(value: ["title": "shared"])
        try realm.write {
            realm.add(note)
            realm.add(IdentifiedNote(value: ["title": "other"]))
        }
        let holder = Holder()
        holder.note = note
        holder.notes = realm.objects(IdentifiedNote.self).where { $0.title == "shared" }
        nonisolated(unsafe) var seen: [String?] = []
        nonisolated(unsafe) var counts: [Int?] = []
        onAnotherThread {
            seen.append(holder.note?.title)
            seen.append(holder.note?.title)
            counts.append(holder.notes?.count)
            // The value is this thread's: it can be written here.
            let local = try! Realm(configuration: config)
            try! local.write { holder.note?.body = "written on another thread" }
        }
        XCTAssertEqual(seen, ["shared", "shared"])
        XCTAssertEqual(counts, [1])
        realm.refresh()
        XCTAssertEqual(note.body, "written on another thread")
        XCTAssertEqual(holder.note?.body, "written on another thread", "read on this thread too")
    }

    func testADeletedObjectAndANilValueReadNil() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let realm = try Realm(configuration: config)
        let note = IdentifiedNote(value: ["title": "doomed"])
        try realm.write { realm.add(note) }
        let holder = Holder()
        holder.note = note
        try realm.write { realm.delete(note) }
        nonisolated(unsafe) var title: String? = "unread"
        onAnotherThread { title = holder.note?.title }
        XCTAssertNil(title)
        holder.note = nil
        XCTAssertNil(holder.note)
    }

    func testAnObjectWrittenAfterTheReadersRealmWasOpenedIsFound() throws {
        let config = try makeFileConfiguration([IdentifiedNote.self])
        let realm = try Realm(configuration: config)
        let holder = Holder()
        let ready = DispatchSemaphore(value: 0)
        let assigned = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var title: String?
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            let own = try! Realm(configuration: config)
            _ = own.objects(IdentifiedNote.self).count   // a snapshot from before the write
            ready.signal()
            _ = assigned.wait(timeout: .now() + 10)
            title = holder.note?.title
            done.signal()
        }
        reader.start()
        XCTAssertEqual(ready.wait(timeout: .now() + 10), .success)
        let note = IdentifiedNote(value: ["title": "new"])
        try realm.write { realm.add(note) }
        holder.note = note
        assigned.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(title, "new")
    }
}
