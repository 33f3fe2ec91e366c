import OpenRealmWire

/// An `upload` message: cut into parts, each queued with the app's waiting uploads and
/// integrated under the app's lock, by this connection or by another that took it into
/// its group commit (``UploadIntegration``). A refused part fails the session.
extension SyncConnection {
    func upload(_ session: ServerSession, _ m: WireUpload) {
        let app = session.app
        for part in UploadIntegration.parts(of: m) {
            let job = UploadJob(session: session, upload: part, metrics: metrics)
            app.uploads.add(job)
            var done = false
            while !done {
                done = app.withSyncLock {
                    // Another connection's integration may have taken this upload with its own.
                    if job.isDone { return true }
                    UploadIntegration.integrate(app.uploads.take(maxChangesets: UploadIntegration.groupCommitChangesets), app: app, logger: logger)
                    return job.isDone
                }
            }
            if let failure = job.failure {
                fail(session.number, failure)
                return
            }
        }
    }
}
