import Foundation

/// At most ``limit`` holders at once; the others wait in arrival order, as suspended
/// tasks that hold no thread (unlike a semaphore, whose waiters each block one).
///
/// ```swift
/// await gate.enter()
/// defer { gate.leave() }
/// ```
///
/// A waiter is admitted by the ``leave()`` that frees its place, in FIFO order, so every
/// waiter is admitted after at most the holders and waiters ahead of it. Waiting cannot
/// be cancelled: a waiter is admitted in turn and must then ``leave()``.
///
/// Threading: any thread. ``onChange`` is called with the gate's lock held, so that
/// the values it reports arrive in order: it must be quick and must not use the gate.
final class AsyncGate: @unchecked Sendable {
    /// The most holders at once.
    let limit: Int
    /// Called after every change with the holders and waiters now (the metrics).
    let onChange: (@Sendable (_ running: Int, _ waiting: Int) -> Void)?

    private let lock = NSLock()
    private var holders = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var head = 0
    private var mostHolders = 0

    init(limit: Int, onChange: (@Sendable (_ running: Int, _ waiting: Int) -> Void)? = nil) {
        self.limit = max(1, limit)
        self.onChange = onChange
    }

    /// Waits, holding no thread, until a place is free, and takes it.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if holders < limit {
                holders += 1
                mostHolders = max(mostHolders, holders)
                onChange?(holders, waiters.count - head)
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                onChange?(holders, waiters.count - head)
                lock.unlock()
            }
        }
    }

    /// Gives the place back: to the longest waiter, if any.
    func leave() {
        lock.lock()
        var next: CheckedContinuation<Void, Never>?
        if head < waiters.count {
            next = waiters[head]
            head += 1
            if head > 64 && head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
        } else {
            holders -= 1
        }
        onChange?(holders, waiters.count - head)
        lock.unlock()
        next?.resume()
    }

    /// The holders now.
    var running: Int {
        lock.lock()
        defer { lock.unlock() }
        return holders
    }

    /// The waiters now.
    var waiting: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiters.count - head
    }

    /// The most holders there ever were at once.
    var peakRunning: Int {
        lock.lock()
        defer { lock.unlock() }
        return mostHolders
    }
}
