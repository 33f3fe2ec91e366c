import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The bounded queue between a sync connection's reader and its handler.
final class InboundFrameQueueTests: XCTestCase {
    private static func ping(_ n: UInt64) -> InboundFrameQueue.Item { .message(.ping(WirePing(timestamp: n))) }

    /// Pushes ping `n` from a task of its own.
    private static func pushLater(_ queue: InboundFrameQueue, _ n: UInt64, bytes: Int) -> Task<Void, Never> {
        let item = ping(n)
        return Task.detached { await queue.push(item, bytes: bytes) }
    }

    private func timestamp(_ item: InboundFrameQueue.Item?) -> UInt64? {
        if case .message(.ping(let p))? = item { return p.timestamp } else { return nil }
    }

    /// Polls `condition` until it holds, within a 10 s deadline.
    private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw TestSocket.Failure(description: "timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    func testTheReaderWaitsWhenTheQueueIsFullAndItemsKeepTheirOrder() async throws {
        let queue = InboundFrameQueue(maxFrames: 2, maxBytes: 1 << 20)
        await queue.push(Self.ping(1), bytes: 10)
        await queue.push(Self.ping(2), bytes: 10)
        let third = Self.pushLater(queue, 3, bytes: 10)
        try await waitUntil("the third push waits") { queue.hasWaitingReader }
        XCTAssertEqual(queue.count, 2, "the full queue took no third frame")
        let item1 = await queue.next()
        XCTAssertEqual(timestamp(item1), 1)
        await third.value
        XCTAssertFalse(queue.hasWaitingReader)
        let item2 = await queue.next()
        XCTAssertEqual(timestamp(item2), 2)
        let item3 = await queue.next()
        XCTAssertEqual(timestamp(item3), 3)
        queue.finish()
        let end = await queue.next()
        XCTAssertNil(end)
    }

    func testTheByteLimitHoldsButOneFrameAlwaysFits() async throws {
        let queue = InboundFrameQueue(maxFrames: 100, maxBytes: 100)
        await queue.push(Self.ping(1), bytes: 500)   // alone: accepted whatever its size
        let second = Self.pushLater(queue, 2, bytes: 1)
        try await waitUntil("the second push waits") { queue.hasWaitingReader }
        let item1 = await queue.next()
        XCTAssertEqual(timestamp(item1), 1)
        await second.value
        let item2 = await queue.next()
        XCTAssertEqual(timestamp(item2), 2)
    }

    func testFinishReleasesAWaitingHandlerAndReader() async throws {
        let queue = InboundFrameQueue(maxFrames: 1, maxBytes: 1 << 20)
        let handler = Task.detached { await queue.next() }
        await queue.push(Self.ping(1), bytes: 1)
        let first = await handler.value
        XCTAssertEqual(timestamp(first), 1, "a waiting handler gets the item at once")
        await queue.push(Self.ping(2), bytes: 1)
        let reader = Self.pushLater(queue, 3, bytes: 1)
        try await waitUntil("the push waits") { queue.hasWaitingReader }
        queue.finish()
        await reader.value
        let item2 = await queue.next()
        XCTAssertEqual(timestamp(item2), 2, "what was queued is still handed out")
        let end = await queue.next()
        XCTAssertNil(end)
    }

    func testFinishCanDiscardWhatIsQueued() async throws {
        let queue = InboundFrameQueue(maxFrames: 10, maxBytes: 1 << 20)
        await queue.push(Self.ping(1), bytes: 1)
        await queue.push(Self.ping(2), bytes: 1)
        queue.finish(discardingQueued: true)
        let end = await queue.next()
        XCTAssertNil(end, "a gone connection's queued frames are not handled")
    }
}
