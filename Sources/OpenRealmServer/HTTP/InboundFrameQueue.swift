import Foundation
import OpenRealmWire

/// The frames a sync connection has read but not handled yet, between the WebSocket's
/// reader (which must keep reading, so that pongs and close frames are seen while a
/// frame waits for the app) and the connection's handler (one frame at a time, in order).
///
/// Bounded: the reader waits (and so stops reading the socket, which pushes back on the
/// client through TCP) once ``maxFrames`` frames or ``maxBytes`` bytes are queued; a
/// single frame is always accepted when the queue is empty, whatever its size. Frames
/// are charged by their decoded size (header plus decompressed body), not by what they
/// took on the wire: a compressed frame holds its decompressed body once decoded.
///
/// Threading: any number of threads and tasks; one reader and one handler at a time.
final class InboundFrameQueue: @unchecked Sendable {
    /// What the handler receives.
    enum Item: Sendable {
        /// A decoded message.
        case message(WireMessage)
        /// A frame that broke the protocol: fail the connection with this error.
        case failure(WireErrorMessage)
    }

    /// The most frames queued at once.
    let maxFrames: Int
    /// The most bytes (of the frames as decoded) queued at once.
    let maxBytes: Int
    /// Where the queued bytes are reported (`openrealm_inbound_queued_bytes` and its peak).
    private let metrics: ServerMetrics?

    private let lock = NSLock()
    private var items: [(item: Item, bytes: Int)] = []
    private var head = 0
    private var queuedBytes = 0
    private var finished = false
    private var waitingHandler: CheckedContinuation<Item?, Never>?
    private var waitingReader: CheckedContinuation<Void, Never>?

    init(maxFrames: Int = 256, maxBytes: Int = 32 << 20, metrics: ServerMetrics? = nil) {
        self.maxFrames = max(1, maxFrames)
        self.maxBytes = max(1, maxBytes)
        self.metrics = metrics
    }

    /// Queues `item`, which costs `bytes` once decoded; waits while the queue is full.
    /// Does nothing once the queue is finished.
    func push(_ item: Item, bytes: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if finished {
                lock.unlock()
                continuation.resume()
            } else if let handler = waitingHandler {
                waitingHandler = nil
                lock.unlock()
                handler.resume(returning: item)
                continuation.resume()
            } else if canAccept(bytes) {
                items.append((item, bytes))
                account(bytes)
                lock.unlock()
                continuation.resume()
            } else {
                // Resumed by the handler once there is room; the item goes in then.
                pendingItem = (item, bytes)
                waitingReader = continuation
                lock.unlock()
            }
        }
    }

    /// The item of the reader waiting for room.
    private var pendingItem: (item: Item, bytes: Int)?

    /// Adds `delta` to the queued bytes and reports them. Call with `lock` held.
    private func account(_ delta: Int) {
        queuedBytes += delta
        guard let metrics, delta != 0 else { return }
        metrics.adjust("openrealm_inbound_queued_bytes", by: Int64(delta))
        if delta > 0 { metrics.raise("openrealm_inbound_queue_peak_bytes", to: Int64(queuedBytes)) }
    }

    /// Whether a frame of `bytes` fits now. Call with `lock` held.
    private func canAccept(_ bytes: Int) -> Bool {
        let count = items.count - head
        return count == 0 || (count < maxFrames && queuedBytes + bytes <= maxBytes)
    }

    /// The next item, waiting for one; nil once the queue is finished and empty.
    func next() async -> Item? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
            lock.lock()
            if head < items.count {
                let (item, bytes) = items[head]
                head += 1
                account(-bytes)
                if head > 64 && head * 2 > items.count {
                    items.removeFirst(head)
                    head = 0
                }
                // Room again: the waiting reader's item goes in.
                var reader: CheckedContinuation<Void, Never>?
                if let pending = pendingItem, let waiting = waitingReader, canAccept(pending.bytes) {
                    pendingItem = nil
                    waitingReader = nil
                    items.append(pending)
                    account(pending.bytes)
                    reader = waiting
                }
                lock.unlock()
                continuation.resume(returning: item)
                reader?.resume()
            } else if finished {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waitingHandler = continuation
                lock.unlock()
            }
        }
    }

    /// Ends the queue: the handler gets what is queued (nothing when `discardingQueued`),
    /// then nil; a waiting reader is let go.
    func finish(discardingQueued: Bool = false) {
        lock.lock()
        finished = true
        if discardingQueued {
            items.removeAll()
            head = 0
            account(-queuedBytes)
        }
        let handler = waitingHandler
        waitingHandler = nil
        let reader = waitingReader
        waitingReader = nil
        pendingItem = nil
        lock.unlock()
        handler?.resume(returning: nil)
        reader?.resume()
    }

    /// Whether the reader waits for room.
    var hasWaitingReader: Bool {
        lock.lock()
        defer { lock.unlock() }
        return waitingReader != nil
    }

    /// The bytes (decoded) queued now.
    var bytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return queuedBytes
    }

    /// The number of frames queued now (for tests and metrics).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count - head
    }
}
