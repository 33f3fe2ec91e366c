import Foundation

/// Heartbeats: with several engines over one store (``StorageTopology/shared``), the
/// history trim of one engine cannot see the others' bound sessions. It waits for every
/// file seen within the retention period (``HistoryTrimmer``), so each engine records its
/// bound sessions' files as seen, often enough that a file bound to any engine never
/// looks away to another's trim: a quarter of the retention period, at most a minute
/// (``SyncServer/recordHeartbeats()``).
///
/// An engine alone with its store passes its bound files to its own trims and needs no
/// heartbeat.
extension SyncApp {
    /// How often an engine records its bound files as seen when files away longer than
    /// `retentionSeconds` are not waited for: four heartbeats within the period, so that
    /// a late or failed one does not let a bound file lapse.
    static func heartbeatInterval(retentionSeconds: Int64) -> Duration {
        let quarter = Duration.milliseconds(max(1, retentionSeconds) * 250)
        return min(quarter, .seconds(60))
    }

    /// Records the bound sessions' files as seen at `now`, in a write unit (which takes
    /// none of the app's locks); does nothing when no session is bound.
    ///
    /// - Throws: the store's errors (the files are then recorded at the next heartbeat,
    ///   well within the retention period).
    func recordBoundFilesSeen(now: Int64 = StorageConventions.nowMilliseconds) throws {
        let files = boundFiles
        guard !files.isEmpty else { return }
        try storage.write { unit in try unit.recordSeen(files.sorted(), now: now) }
    }
}

extension SyncServer {
    /// Records, for every open app, its bound sessions' files as seen, once per
    /// ``SyncApp/heartbeatInterval(retentionSeconds:)`` of the shortest retention period
    /// among them, until cancelled. Runs beside the listeners when other processes share
    /// the storage (``StorageTopology/shared``).
    func recordHeartbeats() async {
        let retention = configuration.app?.clientRetentionSeconds
            ?? ServerAppConfiguration.development(appId: "heartbeat").clientRetentionSeconds
        let interval = SyncApp.heartbeatInterval(retentionSeconds: retention)
        while true {
            do { try await Task.sleep(for: interval) } catch { return }
            for app in auth.apps.openApps {
                do {
                    try await BlockingWork.run { try app.recordBoundFilesSeen() }
                } catch {
                    logger.warning("recording the bound client files as seen failed; the next heartbeat tries again",
                                   metadata: ["app": "\(app.appId)", "error": "\(error)"])
                }
            }
        }
    }
}
