import Foundation
import OpenRealmWire

/// One `upload` message waiting to be integrated, and what became of it.
///
/// Its outcome (``isDone``, ``failure``) is written and read with the app's lock
/// (``SyncApp/syncLock``) held.
final class UploadJob: @unchecked Sendable {
    let session: ServerSession
    let upload: WireUpload
    /// The counters of the connection it came on.
    let metrics: ServerMetrics
    /// Whether it was integrated (or refused) and acknowledged.
    var isDone = false
    /// The fatal session error its connection must report, when it was refused.
    var failure: SyncFailure?

    init(session: ServerSession, upload: WireUpload, metrics: ServerMetrics) {
        self.session = session
        self.upload = upload
        self.metrics = metrics
    }

    /// The changesets it carries.
    var changesetCount: Int { upload.changesets.count }
}

/// The uploads of one app waiting for the app's lock, in arrival order (group commit).
///
/// Every connection with an upload adds it here and then takes the app's lock; whoever
/// gets the lock integrates the waiting uploads, its own and others', in one write
/// transaction (one durable commit), and the others find theirs done when they get the
/// lock in turn (``SyncConnection/upload(_:_:)``, ``UploadIntegration``).
///
/// Threading: any thread.
final class UploadQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [UploadJob] = []

    init() {}

    /// Adds `job` at the end.
    func add(_ job: UploadJob) {
        lock.lock()
        jobs.append(job)
        lock.unlock()
    }

    /// Removes and returns the oldest jobs, as many as fit in `maxChangesets` changesets
    /// (always at least one when any waits).
    func take(maxChangesets: Int) -> [UploadJob] {
        lock.lock()
        defer { lock.unlock() }
        var count = 0
        var taken = 0
        for job in jobs {
            if taken > 0 && count + job.changesetCount > maxChangesets { break }
            count += job.changesetCount
            taken += 1
        }
        let out = Array(jobs.prefix(taken))
        jobs.removeFirst(taken)
        return out
    }

    /// The number of uploads waiting.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return jobs.count
    }
}
