import XCTest
@testable import OpenRealmServer

/// Clients of either of two servers over one store see what clients of the other upload
/// (``TwoServersTestCase``).
final class SharedStoreServerTests: TwoServersTestCase {
    func testClientsOfTwoServersOverOneStoreSeeEachOthersUploads() throws {
        let login = try TestHTTP(port: ports[0]).request("POST", "/api/client/v2.0/app/todo/auth/providers/anon-user/login", json: [:])
        let token = try XCTUnwrap(login.body["access_token"] as? String)
        let onA = try subscribedClient(port: ports[0], token: token, "TRUEPREDICATE")
        let onB = try subscribedClient(port: ports[1], token: token, "status == 'open'")

        let first = try upload(onA, clientVersion: 1, ServerTestCase.taskSchema + [
            ServerTestCase.task(1, title: "a", status: "open"), ServerTestCase.task(2, title: "b", status: "done"),
        ])
        var got = try nextChangeset(onB)
        XCTAssertEqual(got.serverVersion, first)
        XCTAssertEqual(got.instructions, [ServerTestCase.task(1, title: "a", status: "open")], "only the open task is in B's view")

        // Back the other way; then task 1 leaves the view and task 2 enters it through A.
        let second = try upload(onB, clientVersion: 1, [ServerTestCase.task(3, title: "c", status: "open")])
        got = try nextChangeset(onA)
        XCTAssertEqual(got.serverVersion, second)
        XCTAssertEqual(got.instructions, [ServerTestCase.task(3, title: "c", status: "open")])
        let third = try upload(onA, clientVersion: 2, [
            .set(object: ServerTestCase.path(1), property: "status", value: .string("done")),
            .set(object: ServerTestCase.path(2), property: "status", value: .string("open")),
        ])
        got = try nextChangeset(onB)
        XCTAssertEqual(got.serverVersion, third)
        XCTAssertEqual(got.instructions, [.eraseObject(ServerTestCase.path(1)), ServerTestCase.task(2, title: "b", status: "open")])
    }
}

extension SharedStoreServerTests {
    func testLoginAttemptsThroughEitherServerDrawOnOneAllowance() throws {
        let servers = try ports.map { try TestHTTP(port: $0) }
        func login(_ index: Int, _ password: String) throws -> TestHTTP.Reply {
            try servers[index % 2].request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/login",
                                           json: ["username": "ann@example.com", "password": password])
        }
        XCTAssertEqual(try servers[0].request("POST", "/api/client/v2.0/app/todo/auth/providers/local-userpass/register",
                                              json: ["email": "ann@example.com", "password": "secret1"]).status, 201)
        // The email's bucket holds 10 attempts (development mode), whichever server takes them.
        let burst = ServerAppConfiguration.development(appId: "todo").loginRateLimitPerEmail.burst
        for attempt in 0..<burst { XCTAssertEqual(try login(attempt, "guess").errorCode, "InvalidPassword", "attempt \(attempt)") }
        for attempt in burst..<(burst + 2) {
            let limited = try login(attempt, "secret1")
            XCTAssertEqual(limited.status, 429, "attempt \(attempt) through server \(attempt % 2): \(limited.body)")
        }
    }
}
