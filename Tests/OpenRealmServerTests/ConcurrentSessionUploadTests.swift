import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Two sessions of one client file at once: the connection a killed or reconnecting
/// client left behind still delivers its upload while the new one re-uploads it.
final class ConcurrentSessionUploadTests: ServerTestCase {
    func testAChangesetIntegratedThroughAnotherSessionOfTheFileIsNotIntegratedAgain() throws {
        let token = try anonymousToken()
        let (old, ident) = try boundClient(token: token)
        try subscribeToAllTasks(old)                                                                   // 1
        try upload(old, clientVersion: 1, Self.taskSchema + [Self.task(1, title: "t", status: "open")]) // 2

        // The client reconnects; the server still reads the old connection.
        let new = try TestSyncClient(port: port, appId: "todo")
        try new.send(.bind(WireBind(session: 1, appId: "todo", accessToken: token, fileIdentity: ident.fileIdentity,
                                    lastIntegratedServerVersion: 2)))
        let newIdent = try new.waitFor("ident") { if case .ident(let i) = $0 { return i } else { return nil } }
        XCTAssertEqual(newIdent.lastIntegratedClientVersion, 1)
        try subscribeToAllTasks(new)                                                                   // 3

        let append = WireInstruction.listInsert(object: Self.path(1), property: "tags", index: 0, value: .string("x"))
        try upload(old, clientVersion: 2, serverVersion: 2, [append])                                  // 4
        try upload(new, clientVersion: 2, serverVersion: 2, [append])                                  // skipped

        let (reader, _) = try boundClient()
        let tags = try subscribeToAllTasks(reader).compactMap { instruction -> String? in
            guard case .listInsert(_, "tags", _, .string(let tag)) = instruction else { return nil }
            return tag
        }
        XCTAssertEqual(tags, ["x"], "client version 2 was integrated once")
        XCTAssertEqual(try server.auth.apps.app("todo").serverVersion, 5, "the re-upload made no server version")
    }
}
