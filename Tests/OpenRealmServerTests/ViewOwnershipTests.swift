import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// An object a client creates enters that client's own view when it matches its
/// subscriptions, so that later changes by others (an erase, a set, the object leaving
/// the view) reach the creator.
final class ViewOwnershipTests: ServerTestCase {
    /// The next download of `client` that carries changesets; its instructions.
    func nextChanges(_ client: TestSyncClient, _ what: String) throws -> [WireInstruction] {
        try client.waitFor(what) { m -> [WireInstruction]? in
            if case .download(let d) = m, !d.changesets.isEmpty { return d.changesets.flatMap(\.instructions) }
            if case .error(let e) = m { XCTFail("unexpected error: \(e.message)") }
            return nil
        }
    }

    func testAnotherClientsEraseReachesTheCreator() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(a)
        try subscribeToAllTasks(b)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "mine", status: "open")])
        XCTAssertEqual(try nextChanges(b, "b to receive the task").first, Self.task(1, title: "mine", status: "open"))

        try upload(b, clientVersion: 1, serverVersion: 3, [.set(object: Self.path(1), property: "title", value: .string("theirs"))])
        XCTAssertEqual(try nextChanges(a, "a to receive b's set"),
                       [.set(object: Self.path(1), property: "title", value: .string("theirs"))])
        try upload(b, clientVersion: 2, serverVersion: 4, [.eraseObject(Self.path(1))])
        XCTAssertEqual(try nextChanges(a, "a to receive b's erase"), [.eraseObject(Self.path(1))])
    }

    func testACreatedObjectSubscribedBeforeItsClassExistedEntersTheView() throws {
        // The creator subscribes before the class exists on the server, and creates the
        // object in the same changeset as the schema.
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "mine", status: "open")])
        let (b, _) = try boundClient()
        try subscribeToAllTasks(b)
        // Another client moves it out of the creator's narrower view: the creator is told.
        try query(a, version: 2, ["Task": "status == 'open'"]).get()
        try upload(b, clientVersion: 1, serverVersion: 3, [.set(object: Self.path(1), property: "status", value: .string("done"))])
        XCTAssertEqual(try nextChanges(a, "a to see the task leave its view"), [.eraseObject(Self.path(1))])
    }

    func testAnObjectCreatedWithinTheSameUploadAsOthersIsTracked() throws {
        let (a, _) = try boundClient()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(a)
        try subscribeToAllTasks(b)
        // Two changesets in one upload, each creating an object.
        try a.send(.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 10),
                                instructions: Self.taskSchema + [Self.task(1, title: "one", status: "open")]),
            WireUploadChangeset(clientVersion: 2, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 11),
                                instructions: [Self.task(2, title: "two", status: "open")]),
        ])))
        _ = try a.waitFor("the acknowledgement") { m -> Bool? in
            if case .download(let d) = m, d.progress.lastIntegratedClientVersion == 2 { return true } else { return nil }
        }
        _ = try nextChanges(b, "b to receive task 1")
        _ = try nextChanges(b, "b to receive task 2")
        try upload(b, clientVersion: 1, serverVersion: 4, [.eraseObject(Self.path(1)), .eraseObject(Self.path(2))])
        XCTAssertEqual(try nextChanges(a, "a to receive both erases"), [.eraseObject(Self.path(1)), .eraseObject(Self.path(2))])
    }
}
