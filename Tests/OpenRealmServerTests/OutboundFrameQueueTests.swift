import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer
#if canImport(Glibc)
import Glibc
#endif

/// What a sync connection's outgoing queue holds in memory: no more than the frame bytes
/// its bound counts, so that a client that never reads costs the server its bound and
/// not several times it.
final class OutboundFrameQueueTests: XCTestCase {
    /// A bootstrap-like download: `count` objects of 256 KiB of random letters (they
    /// compress less than twofold).
    private static func download(objects count: Int, seed: UInt64) -> WireMessage {
        var state = seed
        let objects = (0..<count).map { index -> WireInstruction in
            let text = String(decoding: (0..<(256 << 10)).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(97 + (state >> 33) % 26)
            }, as: UTF8.self)
            return .createObject(className: "Blob", primaryKey: .int(Int64(index)), values: [WirePropertyValue("data", .string(text))])
        }
        return .download(WireDownload(session: 1, queryVersion: 1, progress: WireDownloadProgress(serverVersion: 1, lastIntegratedClientVersion: 0),
                                      bootstrap: .inProgress, changesets: [WireDownloadChangeset(
                                          serverVersion: 1, lastIntegratedClientVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                          instructions: objects)]))
    }

    /// The memory this process uses: its resident pages once glibc has handed its free
    /// memory back (`malloc_trim`, found with `dlsym`: Swift's Glibc module leaves
    /// `malloc.h` out), so freed blocks do not count.
    private var memoryInUse: Int {
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(statm.split(separator: " ")[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Sixteen downloads of 1 MiB of text each, queued and their messages dropped: the
    /// process grows by about the bytes the queue counts (the encoded frames), not by the
    /// frames plus their decoded messages or their encoder's buffers.
    func testQueuedFramesHoldNoMoreThanTheBytesTheQueueCounts() {
        let queue = OutboundFrameQueue(maxBytes: 64 << 20)
        let before = memoryInUse
        for seed in 1...16 {
            // Built and dropped in the loop's scope: only the queue can keep anything.
            queue.push(.message(Self.download(objects: 4, seed: UInt64(seed))))
        }
        let held = memoryInUse - before
        XCTAssertGreaterThan(queue.bytes, 8 << 20, "the frames are queued")
        XCTAssertLessThan(held, queue.bytes + queue.bytes / 4,
                          "the queue counts \(queue.bytes) bytes and holds \(held)")
        withExtendedLifetime(queue) {}
    }
}
