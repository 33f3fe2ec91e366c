import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Query evaluation runs on an executor of its own, at most `syncQueryConcurrency` jobs
/// at once: while it is full and more queries wait, logins, `/health`, binds and uploads
/// are still served.
final class QueryWorkTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.syncQueryConcurrency = 2
    }

    func testQueriesPastTheBoundWaitWhileLoginsHealthAndUploadsAreServed() throws {
        let (writer, _) = try boundClient()
        try upload(writer, clientVersion: 1, Self.taskSchema)
        _ = try subscribeToAllTasks(writer)
        try upload(writer, clientVersion: 2, (1...20).map { Self.task($0, title: "t\($0)", status: "open") })
        // A client that will upload while the queries wait (its subscription made before).
        let (uploader, _) = try boundClient()
        _ = try subscribeToAllTasks(uploader)

        // The running query jobs are held at their start, before they take the app's lock.
        let hold = DispatchSemaphore(value: 0)
        server.queryWork.beforeEachJob = { hold.wait() }
        var readers: [TestSyncClient] = []
        for _ in 0..<6 {
            let (client, _) = try boundClient()
            try client.send(.query(WireQuery(session: 1, queryVersion: 1,
                                             queries: [WireClassQuery(className: "Task", query: "TRUEPREDICATE")])))
            readers.append(client)
        }
        let metrics = server.metrics
        try waitUntil("two query jobs run and four wait") {
            metrics.gauge("openrealm_query_jobs_running") == 2 && metrics.gauge("openrealm_query_jobs_queued") == 4
        }

        // Everything else is served meanwhile.
        XCTAssertEqual(try http.request("GET", "/health").status, 200)
        _ = try anonymousToken()
        _ = try boundClient()
        try upload(uploader, clientVersion: 1, [Self.task(21, title: "while queries wait", status: "open")])
        XCTAssertEqual(metrics.gauge("openrealm_query_jobs_queued"), 4, "the queries were still waiting")
        XCTAssertEqual(metrics.gauge("openrealm_query_jobs_running"), 2)

        server.queryWork.beforeEachJob = nil
        hold.signal()
        hold.signal()
        for client in readers {
            var objects = 0
            _ = try client.waitFor("the held query's bootstrap") { message -> Bool? in
                guard case .download(let d) = message, d.queryVersion == 1, d.bootstrap != .none else { return nil }
                objects += d.changesets.flatMap(\.instructions).count
                return d.bootstrap == .lastBatch ? true : nil
            }
            XCTAssertEqual(objects, 21)
        }
        XCTAssertEqual(metrics.gauge("openrealm_query_jobs_running_peak"), 2, "never more than the bound at once")
        XCTAssertEqual(metrics.gauge("openrealm_query_jobs_queued"), 0)
        let text = try http.get("/metrics").body
        XCTAssertTrue(text.contains("openrealm_query_jobs_queued 0"), text)
        XCTAssertTrue(text.contains("openrealm_query_jobs_running_peak 2"), text)
    }
}

/// The gate and the executors: FIFO admission, the bound held, blocking work bounded too.
final class AsyncGateTests: XCTestCase {
    func testAtMostTheLimitHoldAtOnceAndWaitersAreAdmittedInOrder() async throws {
        let gate = AsyncGate(limit: 2)
        await gate.enter()
        await gate.enter()
        let order = OrderBox()
        var waiters: [Task<Void, Never>] = []
        for i in 0..<4 {
            waiters.append(Task {
                await gate.enter()
                order.append(i)
                gate.leave()
            })
            // Each waits before the next is started, so the arrival order is 0, 1, 2, 3.
            while gate.waiting < i + 1 { await Task.yield() }
        }
        XCTAssertEqual(gate.running, 2)
        // One place freed: the waiters go through it one at a time (each leaving admits
        // the next), so the order they run in is the order they were admitted in.
        gate.leave()
        for waiter in waiters { await waiter.value }
        XCTAssertEqual(order.values, [0, 1, 2, 3])
        XCTAssertEqual(gate.running, 1)
        gate.leave()
        XCTAssertEqual(gate.running, 0)
        XCTAssertEqual(gate.peakRunning, 2)
    }

    func testAnExecutorRunsAtMostItsLimitAndBlockingWorkIsOne() async throws {
        let executor = BoundedExecutor(label: "test", limit: 3)
        let jobs = 8
        let release = DispatchSemaphore(value: 0)
        let started = OrderBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<jobs {
                group.addTask {
                    try await executor.run { () throws -> Void in
                        started.append(i)
                        // Released below in every case, so the wait needs no timeout.
                        release.wait()
                    }
                }
            }
            let deadline = Date().addingTimeInterval(10)
            while executor.gate.waiting < jobs - 3 || started.values.count < 3 {
                guard Date() < deadline else { XCTFail("the jobs did not start and queue"); break }
                try await Task.sleep(for: .milliseconds(10))
            }
            XCTAssertEqual(started.values.count, 3, "only the limit's jobs run")
            XCTAssertEqual(executor.gate.running, 3)
            for _ in 0..<jobs { release.signal() }
            try await group.waitForAll()
        }
        XCTAssertEqual(Set(started.values), Set(0..<jobs))
        XCTAssertEqual(executor.gate.peakRunning, 3)
        XCTAssertEqual(BlockingWork.executor.limit, BlockingWork.maxConcurrentJobs)
        XCTAssertEqual(BlockingWork.executor.gate.limit, 32)
    }
}

private final class OrderBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Int] = []

    func append(_ value: Int) {
        lock.withLock { items.append(value) }
    }

    var values: [Int] { lock.withLock { items } }
}

