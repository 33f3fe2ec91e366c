import Foundation
import OpenRealmWire

/// A bootstrap's downloads, made one at a time as the connection's writer asks for them
/// (``ConnectionOutput/stream(_:)``), so that a view larger than the outgoing queue's
/// bound reaches a client that reads it, batch after batch, and never more than one
/// batch's frame waits in the queue.
///
/// The instructions are those of one consistent state — the view change's server
/// version, read in its write transaction under the app's lock — and so are the batch
/// boundaries and each download's `downloadableBytes`, worked out before the first is
/// sent. What the connection is sent after the bootstrap (fan-out, answers) queues
/// behind the stream and is written after its last batch.
///
/// Threading: ``next()`` is called by one consumer at a time (the connection's writer).
public final class BootstrapStream: @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[WireInstruction]]
    /// What remains after each batch (`downloadableBytes`).
    private let remaining: [UInt64]
    private var index = 0
    private let session: UInt64
    private let queryVersion: UInt64
    private let serverVersion: UInt64
    private let lastIntegratedClientVersion: UInt64
    private let timestamp: WireHybridTimestamp

    init(batches: [[WireInstruction]], remaining: [UInt64], session: UInt64, queryVersion: UInt64, serverVersion: UInt64,
         lastIntegratedClientVersion: UInt64, timestamp: WireHybridTimestamp) {
        precondition(!batches.isEmpty && batches.count == remaining.count)
        self.batches = batches
        self.remaining = remaining
        self.session = session
        self.queryVersion = queryVersion
        self.serverVersion = serverVersion
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
        self.timestamp = timestamp
    }

    /// The batches not handed out yet.
    public var batchesLeft: Int {
        lock.withLock { batches.count - index }
    }

    /// The next batch's download (`bootstrap` `inProgress`, the last one `lastBatch`),
    /// or nil once every batch was handed out. Each batch's instructions are let go once
    /// handed out.
    public func next() -> WireMessage? {
        lock.lock()
        guard index < batches.count else {
            lock.unlock()
            return nil
        }
        let batch = batches[index]
        batches[index] = []
        let i = index
        index += 1
        lock.unlock()
        let changesets = batch.isEmpty ? [] : [WireDownloadChangeset(
            serverVersion: serverVersion, lastIntegratedClientVersion: lastIntegratedClientVersion,
            timestamp: timestamp, instructions: batch)]
        return .download(WireDownload(session: session, queryVersion: queryVersion,
                                      progress: WireDownloadProgress(serverVersion: serverVersion,
                                                                     lastIntegratedClientVersion: lastIntegratedClientVersion,
                                                                     downloadableBytes: remaining[i]),
                                      bootstrap: i == batches.count - 1 ? .lastBatch : .inProgress,
                                      changesets: changesets))
    }

    /// Every download left, at once (a transport without a bound, e.g. tests).
    public func drain() -> [WireMessage] {
        var out: [WireMessage] = []
        while let message = next() { out.append(message) }
        return out
    }
}
