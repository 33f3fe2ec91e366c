import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

/// Last-writer-wins on the client (`docs/CONFLICTS.md`): two clients write the same
/// property while offline; whatever order they reconnect in, both clients and the
/// server end with the value of the later write, and a client never lets a download
/// overwrite a pending write of its own that the server will keep.
final class ConflictSyncTests: SyncTestCase {
    static let types: [ObjectBase.Type] = [Task.self, Team.self]

    nonisolated(nonsending) func open(_ name: String) async throws -> Realm {
        try await openClient(name, Self.types) { $0.append(QuerySubscription<Task>(name: "tasks")) }.1
    }

    func task(_ realm: Realm, _ id: ObjectId) -> Task? {
        realm.refresh()
        return realm.object(ofType: Task.self, forPrimaryKey: id)
    }

    func name(_ realm: Realm, _ id: ObjectId) -> String? { task(realm, id)?.taskName }

    /// Creates a task on `a` and waits until `others` have it.
    @MainActor
    func newTask(_ a: Realm, _ others: [Realm]) async throws -> ObjectId {
        let id = ObjectId.generate()
        try a.write { a.add(Task(value: ["_id": id, "taskName": "start"])) }
        try await a.syncSession!.wait(for: .upload)
        for other in others { try await waitUntil("the task to arrive") { name(other, id) == "start" } }
        return id
    }

    /// Waits until the wall clock has moved past the last commit's millisecond, so that
    /// the next commit, on any client, is stamped later.
    nonisolated(nonsending) func nextMillisecond() async throws {
        let start = Date().timeIntervalSince1970
        try await waitUntil("the clock to advance") { Date().timeIntervalSince1970 - start >= 0.003 }
    }

    @MainActor
    func testLaterOfflineWriteWinsWhateverTheReconnectOrder() async throws {
        let a = try await open("a")
        let b = try await open("b")
        for (firstWriter, firstToReconnect) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let clients = [a, b]
            let id = try await newTask(a, [b])
            for client in clients { try await goOffline(client) }
            let early = clients[firstWriter], late = clients[1 - firstWriter]
            try early.write { task(early, id)!.taskName = "early" }
            try await nextMillisecond()
            try late.write { task(late, id)!.taskName = "late" }

            let first = clients[firstToReconnect], second = clients[1 - firstToReconnect]
            first.syncSession!.resume()
            try await first.syncSession!.wait(for: .upload)
            second.syncSession!.resume()
            try await second.syncSession!.wait(for: .upload)
            for client in clients { try await client.syncSession!.wait(for: .download) }
            let label = "writer \(firstWriter) first, client \(firstToReconnect) reconnecting first"
            try await waitUntil("a: the later write (\(label))") { name(a, id) == "late" }
            try await waitUntil("b: the later write (\(label))") { name(b, id) == "late" }
        }
        let c = try await open("c")
        try await waitUntil("c: the later writes") { c.objects(Task.self).count == 4 }
        XCTAssertEqual(Set(c.objects(Task.self).map(\.taskName)), ["late"])
    }

    /// A download that an earlier write stamped arrives while the client's own later
    /// write is pending: the local value stays (the server keeps it too), and the
    /// acknowledgement does not change it again. An earlier pending write loses.
    ///
    /// `a` stays connected with its uploads held back, so that the downloads reach it
    /// as live changesets integrated before its pending write (a re-bind would resend
    /// the object whole instead, `docs/SERVER.md` "View changes and re-binds").
    @MainActor
    func testPendingWriteIsComparedWithDownloads() async throws {
        let a = try await open("a")
        let b = try await open("b")
        let id = try await newTask(a, [b])
        holdUploads(a, true)
        defer { holdUploads(a, false) }

        // a's write is later: it stays while b's earlier one is downloaded.
        try await goOffline(b)
        try b.write { task(b, id)!.taskName = "b-earlier" }
        try await nextMillisecond()
        try a.write { task(a, id)!.taskName = "a-later" }
        b.syncSession!.resume()
        try await b.syncSession!.wait(for: .upload)
        try await a.syncSession!.wait(for: .download)
        XCTAssertEqual(name(a, id), "a-later", "a download of an earlier write replaced a later pending one")
        holdUploads(a, false)
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to take a's later write") { name(b, id) == "a-later" }
        try await a.syncSession!.wait(for: .download)
        XCTAssertEqual(name(a, id), "a-later")

        // a's write is earlier: the download wins, and stays after the acknowledgement.
        holdUploads(a, true)
        try a.write { task(a, id)!.taskName = "a-earlier" }
        try await nextMillisecond()
        try b.write { task(b, id)!.taskName = "b-later" }
        try await b.syncSession!.wait(for: .upload)
        try await a.syncSession!.wait(for: .download)
        XCTAssertEqual(name(a, id), "b-later", "a later download did not replace an earlier pending write")
        holdUploads(a, false)
        try await a.syncSession!.wait(for: .upload)
        try await a.syncSession!.wait(for: .download)
        XCTAssertEqual(name(a, id), "b-later")
        XCTAssertEqual(name(b, id), "b-later")
        let c = try await open("c")
        try await waitUntil("c to download the task") { name(c, id) == "b-later" }
    }

    /// Three clients write a few properties of a few tasks at random, going offline and
    /// back at random; at the end every client shows what the server holds.
    @MainActor
    func testRandomConcurrentWritesConverge() async throws {
        let clients = [try await open("a"), try await open("b"), try await open("c")]
        var ids: [ObjectId] = []
        for _ in 0..<3 { ids.append(try await newTask(clients[0], Array(clients.dropFirst()))) }
        var seed: UInt64 = 20240611
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        var offline = [false, false, false]
        for step in 0..<300 {
            let i = next(3)
            let realm = clients[i]
            switch next(10) {
            case 0:
                if offline[i] { realm.syncSession!.resume() } else { realm.syncSession!.suspend() }
                offline[i].toggle()
            case 1:
                try await _Concurrency.Task.sleep(nanoseconds: UInt64(next(15)) * 1_000_000)
            default:
                realm.refresh()
                let t = try XCTUnwrap(realm.object(ofType: Task.self, forPrimaryKey: ids[next(ids.count)]))
                try realm.write {
                    switch next(3) {
                    case 0: t.taskName = "n\(step)"
                    case 1: t.assignee = next(4) == 0 ? nil : "p\(step)"
                    default: t.completed = next(2) == 0
                    }
                }
            }
        }
        for (i, realm) in clients.enumerated() where offline[i] { realm.syncSession!.resume() }
        for realm in clients { try await realm.syncSession!.wait(for: .upload) }
        for realm in clients { try await realm.syncSession!.wait(for: .download) }

        func state(_ realm: Realm) -> [String] {
            realm.refresh()
            return ids.map { id in
                let t = realm.object(ofType: Task.self, forPrimaryKey: id)
                return t.map { "\($0.taskName)|\($0.assignee ?? "nil")|\($0.completed)" } ?? "missing"
            }
        }
        let fresh = try await open("d")
        try await waitUntil("d to download the tasks") { !state(fresh).contains("missing") }
        let server = state(fresh)
        for (i, realm) in clients.enumerated() {
            do {
                try await waitUntil("client \(i) to converge on \(server)", timeout: 30) { state(realm) == server }
            } catch {
                XCTAssertEqual(state(realm), server, "client \(i)")
                throw error
            }
        }
    }
}
