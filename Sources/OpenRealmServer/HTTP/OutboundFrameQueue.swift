import Foundation
import OpenRealmWire

/// The frames a sync connection has to send and has not written yet, between whoever
/// makes them — the connection's own handler (answers, bootstraps), other connections'
/// integrations (fan-out, under their app's lock), the reader (pongs) — and the
/// connection's writer, which waits for the socket to take them.
///
/// Bounded in bytes, counted by encoded frame size — and an entry holds its frame and
/// nothing else of the message (not its decoded values, not the encoder's buffer), so
/// what the bound counts is what the queue holds. ``push(_:)`` never waits (fan-out
/// must never hold the integrating writer on one slow client), so a push that would take
/// the queue past ``maxBytes`` **overflows** it instead: what is queued is dropped, and
/// the connection gets a fatal `connectionClosed` error and a close (code 1008) in its
/// place. A frame always fits into an empty queue, whatever its size. The connection's
/// handler does not start its next frame while more than half of ``maxBytes`` is queued
/// (``waitForRoom()``), so a client that reads keeps the queue low and only one that does
/// not read, or reads far slower than it is sent to, reaches the bound.
///
/// A bootstrap is queued as a stream (``BootstrapStream``): its batches are made and
/// encoded one at a time, when the writer is ready for the next, so only the batch being
/// written counts against the bound, and a view larger than the bound reaches a client
/// that reads it. What is pushed after a stream waits behind it (counted as usual), and
/// the handler takes no next frame while a stream is queued.
///
/// Every frame must be written within the drain timeout of being queued:
/// ``oldestUnwrittenSince`` is when the oldest frame not written yet (the one being
/// written included) was queued — for a stream, when its current batch was made, or when
/// its previous one was written — ; the transport closes the connection once that is older
/// than its timeout, whether or not the peer answers pings (a peer that does not read
/// makes every write wait, pings included).
///
/// Threading: any number of producers; one writer and one handler at a time.
final class OutboundFrameQueue: @unchecked Sendable {
    /// What the writer does next.
    enum Entry: Sendable {
        /// Writes this frame; `sent` is what it carries, for the counters (not the
        /// message: its decoded values would be held beside the frame, uncounted).
        case frame([UInt8], sent: ServerMetrics.SentFrame)
        /// Closes the WebSocket with this code (after the frames before it).
        case close(code: UInt16, reason: String?)
    }

    /// The most encoded bytes queued at once (the frame being written included).
    let maxBytes: Int
    /// Where the queued bytes are reported (`openrealm_outbound_queued_bytes` and its peak).
    private let metrics: ServerMetrics?
    /// Called once when the queue overflows, with the queued bytes and the frame that did
    /// not fit (outside the queue's lock).
    var onOverflow: (@Sendable (_ queued: Int, _ frame: Int) -> Void)?

    /// A queued entry: a frame or close ready to write, or a bootstrap stream whose next
    /// batch is made when the writer gets to it.
    private enum Queued {
        case ready(Entry)
        case stream(BootstrapStream)
    }

    /// What the writer's wait ends with: an entry (nil: the end), or a stream at the head
    /// of the queue whose next batch it makes, outside the lock.
    private enum Step {
        case entry(Entry?)
        case produce(BootstrapStream)
    }

    private let lock = NSLock()
    private var items: [(entry: Queued, bytes: Int, queuedAt: ContinuousClock.Instant)] = []
    /// The streams queued (the one being written included).
    private var streams = 0
    private var head = 0
    private var queuedBytes = 0
    /// The frame the writer is writing: its size and when it was queued.
    private var inFlight: (bytes: Int, queuedAt: ContinuousClock.Instant)?
    /// A close was queued: later pushes are dropped.
    private var finished = false
    private(set) var hasOverflowed = false
    private var waitingWriter: CheckedContinuation<Step, Never>?
    private var waitingHandler: CheckedContinuation<Void, Never>?
    /// The writer saw the end: nothing more is taken.
    private var ended = false

    init(maxBytes: Int, metrics: ServerMetrics? = nil) {
        self.maxBytes = max(1, maxBytes)
        self.metrics = metrics
    }

    /// Queues `output` without waiting: a message is encoded here (frames shared by
    /// fan-out are written as they are, unless made for another protocol version).
    /// Dropped once the queue is finished or overflowed.
    func push(_ output: ConnectionOutput) {
        let entry: Entry
        switch output {
        case .stream(let stream):
            push(stream)
            return
        case .close:
            entry = .close(code: 1000, reason: nil)
        case .encoded(let shared) where shared.version == WireEncoder().version:
            entry = .frame(shared.frame, sent: ServerMetrics.SentFrame(shared.message, committedAt: shared.committedAt))
        case .encoded(let shared):
            entry = Self.encode(shared.message)
        case .message(let message):
            entry = Self.encode(message)
        }
        let bytes: Int
        if case .frame(let frame, _) = entry { bytes = frame.count } else { bytes = 0 }
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        let now = ContinuousClock.now
        if bytes > 0 && queuedBytes > 0 && queuedBytes + bytes > maxBytes {
            let queued = queuedBytes
            overflow(now: now)
            lock.unlock()
            onOverflow?(queued, bytes)
            return
        }
        if case .close = entry { finished = true }
        enqueue(entry, bytes: bytes, now: now)
    }

    /// Queues a bootstrap stream: its batches are made as the writer gets to them.
    private func push(_ stream: BootstrapStream) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        streams += 1
        items.append((.stream(stream), 0, ContinuousClock.now))
        if let writer = waitingWriter {
            // Nothing was queued: the stream is the head.
            waitingWriter = nil
            lock.unlock()
            writer.resume(returning: .produce(stream))
            return
        }
        lock.unlock()
    }

    /// `message` as a frame entry, or a close when it cannot be encoded (a message over
    /// the size limit: a server bug, not the client's).
    private static func encode(_ message: WireMessage) -> Entry {
        do {
            return .frame(try WireEncoder().encode(message), sent: ServerMetrics.SentFrame(message))
        } catch {
            return .close(code: 1011, reason: "cannot encode a \(message.type) message: \(error.message)")
        }
    }

    /// Drops what is queued and queues the error and the close in its place. Call with
    /// `lock` held.
    private func overflow(now: ContinuousClock.Instant) {
        hasOverflowed = true
        finished = true
        account(-(items[head...].reduce(0) { $0 + $1.bytes }))
        items.removeAll()
        head = 0
        let error = WireMessage.error(WireErrorMessage(
            session: 0, code: .connectionClosed,
            message: "connectionClosed: more than \(maxBytes) bytes waited to be sent to this connection; the client does not read what it is sent fast enough",
            isFatal: true))
        let frame = Self.encode(error)
        if case .frame(let bytes, _) = frame {
            items.append((.ready(frame), bytes.count, now))
            account(bytes.count)
        }
        items.append((.ready(.close(code: 1008, reason: "outgoing queue full")), 0, now))
        streams = 0
        // No writer waits here: the queue held bytes, so the writer is busy writing.
        let handler = waitingHandler
        waitingHandler = nil
        handler?.resume()
    }

    /// Appends `entry` and hands it to a waiting writer; unlocks `lock`.
    private func enqueue(_ entry: Entry, bytes: Int, now: ContinuousClock.Instant) {
        account(bytes)
        if let writer = waitingWriter {
            waitingWriter = nil
            inFlight = (bytes, now)
            lock.unlock()
            writer.resume(returning: .entry(entry))
            return
        }
        items.append((.ready(entry), bytes, now))
        lock.unlock()
    }

    /// The next entry for the writer, waiting for one; nil once the queue ended. Call
    /// ``written()`` after writing a frame.
    func next() async -> Entry? {
        while true {
            let step = await withCheckedContinuation { (continuation: CheckedContinuation<Step, Never>) in
                lock.lock()
                if ended {
                    lock.unlock()
                    continuation.resume(returning: .entry(nil))
                } else if head < items.count {
                    let first = items[head]
                    switch first.entry {
                    case .stream(let stream):
                        // It stays the head while its batch is made: later pushes go behind it.
                        lock.unlock()
                        continuation.resume(returning: .produce(stream))
                    case .ready(let entry):
                        dropHead()
                        inFlight = (first.bytes, first.queuedAt)
                        lock.unlock()
                        continuation.resume(returning: .entry(entry))
                    }
                } else {
                    waitingWriter = continuation
                    lock.unlock()
                }
            }
            switch step {
            case .entry(let entry):
                return entry
            case .produce(let stream):
                // Made and encoded outside the lock: producers (fan-out under an app's
                // lock) never wait for a batch's encoding.
                switch took(stream.next().map(Self.encode), from: stream) {
                case .entry(let entry): return entry
                case .again: continue
                }
            }
        }
    }

    /// What the writer does with a batch it made.
    private enum Made {
        case entry(Entry?)
        case again
    }

    /// Takes `entry`, the next batch `stream` made (nil: it has no more), as the frame
    /// in flight; `.again` when the stream ended or was dropped meanwhile (an overflow).
    private func took(_ entry: Entry?, from stream: BootstrapStream) -> Made {
        lock.lock()
        if ended {
            lock.unlock()
            return .entry(nil)
        }
        guard head < items.count, case .stream(let current) = items[head].entry, current === stream else {
            // The queue overflowed meanwhile: the stream was dropped.
            lock.unlock()
            return .again
        }
        guard let entry else {
            // Every batch was written: what was queued behind the stream is next.
            dropHead()
            streams -= 1
            let handler = takeHandlerIfRoom()
            lock.unlock()
            handler?.resume()
            return .again
        }
        var bytes = 0
        if case .frame(let frame, _) = entry { bytes = frame.count }
        account(bytes)
        inFlight = (bytes, ContinuousClock.now)
        lock.unlock()
        return .entry(entry)
    }

    /// Removes the head entry. Call with `lock` held.
    private func dropHead() {
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    /// The waiting handler, taken, when the handler may go on. Call with `lock` held.
    private func takeHandlerIfRoom() -> CheckedContinuation<Void, Never>? {
        guard waitingHandler != nil && hasRoom else { return nil }
        defer { waitingHandler = nil }
        return waitingHandler
    }

    /// The writer wrote the frame ``next()`` gave it: its bytes leave the queue.
    func written() {
        lock.lock()
        if let frame = inFlight {
            inFlight = nil
            account(-frame.bytes)
        }
        if head < items.count, case .stream = items[head].entry {
            // A stream's next batch is waited for from now: it is made once asked for.
            items[head].queuedAt = ContinuousClock.now
        }
        let handler = takeHandlerIfRoom()
        lock.unlock()
        handler?.resume()
    }

    /// Waits until at most half of ``maxBytes`` is queued.
    ///
    /// - Returns: false when the queue overflowed or ended (the connection is closing:
    ///   handle nothing more).
    func waitForRoom() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if hasRoom || hasOverflowed || ended {
                lock.unlock()
                continuation.resume()
            } else {
                waitingHandler = continuation
                lock.unlock()
            }
        }
        return isOpen
    }

    /// Whether the queue neither overflowed nor ended.
    private var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !hasOverflowed && !ended
    }

    /// Whether the handler may go on: at most half the bound queued, and no bootstrap
    /// still streaming. Call with `lock` held.
    private var hasRoom: Bool { queuedBytes <= maxBytes / 2 && streams == 0 }

    /// Ends the queue (the connection is gone): a waiting writer gets nil, a waiting
    /// handler is let go, later pushes are dropped.
    func end() {
        lock.lock()
        ended = true
        finished = true
        account(-queuedBytes)
        items.removeAll()
        head = 0
        streams = 0
        inFlight = nil
        let writer = waitingWriter
        waitingWriter = nil
        let handler = waitingHandler
        waitingHandler = nil
        lock.unlock()
        writer?.resume(returning: .entry(nil))
        handler?.resume()
    }

    /// When the oldest frame not written yet was queued (the one being written
    /// included); nil when everything queued was written.
    var oldestUnwrittenSince: ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return inFlight?.queuedAt ?? (head < items.count ? items[head].queuedAt : nil)
    }

    /// The encoded bytes queued now (the frame being written included).
    var bytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return queuedBytes
    }

    /// Adds `delta` to the queued bytes and reports them. Call with `lock` held.
    private func account(_ delta: Int) {
        queuedBytes += delta
        guard let metrics, delta != 0 else { return }
        metrics.adjust("openrealm_outbound_queued_bytes", by: Int64(delta))
        if delta > 0 { metrics.raise("openrealm_outbound_queue_peak_bytes", to: Int64(queuedBytes)) }
    }
}
