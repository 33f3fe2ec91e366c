import Foundation
import ORCore

/// The change watcher of one open file (one per `RealmCoordinator`): it learns of new
/// versions — at once from commits in this process, by polling `orc_env_version`
/// every few milliseconds for commits of other processes — and pokes the listeners of
/// the states that advance on their own (the main thread's, actors', notification
/// queues'). It also keeps the changeset log from being trimmed past what this
/// process's registrations still need (see `FileNotifier+LogHold.swift`).
///
/// Threads: every method may be called from any thread. The environment is used only
/// inside `withEnv`; `close()` waits for those uses to end, so it is never used after
/// the coordinator closes it. The notifier thread holds notifiers, never coordinators,
/// so it never keeps a file open (an in-memory realm is gone when its last `Realm` is).
package final class FileNotifier: @unchecked Sendable {
    let path: String
    let isReadOnly: Bool
    /// In-memory files are deleted at close: their hold needs no release.
    let isInMemory: Bool

    private let envCondition = NSCondition()
    private var env: OpaquePointer?
    private var users = 0

    private let lock = NSLock()
    private var listeners: [WeakListener] = []
    private var seenVersion: UInt64 = 0

    /// Log-hold bookkeeping (guarded by `holdLock`, never held across a blocking call).
    let holdLock = NSLock()
    var tracked: [ObjectIdentifier: WeakRegistration] = [:]
    var hold: HoldState = .none
    var commitsSinceTrim = 0
    var lastTrackingChange = Date()
    var maintenanceInFlight = false
    /// After a failed dedicated commit, no other is tried before this time.
    var retryMaintenanceAfter = Date.distantPast

    struct WeakListener { weak var listener: StateListener? }
    struct WeakRegistration { weak var registration: NotificationRegistration? }

    init(env: OpaquePointer, path: String, readOnly: Bool, inMemory: Bool) {
        self.env = env
        self.path = path
        isReadOnly = readOnly
        isInMemory = inMemory
    }

    // MARK: The environment

    /// Runs `body` with the environment unless the file is closed.
    func withEnv<R>(_ body: (OpaquePointer) -> R) -> R? {
        envCondition.lock()
        guard let env else { envCondition.unlock(); return nil }
        users += 1
        envCondition.unlock()
        defer {
            envCondition.lock()
            users -= 1
            envCondition.broadcast()
            envCondition.unlock()
        }
        return body(env)
    }

    /// Releases this process's log hold, then waits for uses of the environment to end
    /// and stops using it. Called by the coordinator before it closes the environment.
    func close() {
        releaseHoldOnClose()
        envCondition.lock()
        let closing = env
        env = nil
        while users > 0 { envCondition.wait() }
        envCondition.unlock()
        _ = closing
    }

    var isClosed: Bool { envCondition.withLock { env == nil } }

    // MARK: Listeners

    /// Pokes `listener` whenever the file advances, while both live.
    func add(_ listener: StateListener) {
        lock.withLock {
            listeners.removeAll { $0.listener == nil }
            listeners.append(WeakListener(listener: listener))
        }
        NotifierThread.shared.watch(self)
    }

    var hasListeners: Bool { lock.withLock { listeners.contains { $0.listener?.isAlive ?? false } } }

    /// A commit of this process made `version`.
    package func fileAdvanced(to version: UInt64) {
        let toPoke = lock.withLock { () -> [StateListener] in
            if version > seenVersion { seenVersion = version }
            return listeners.compactMap(\.listener)
        }
        for listener in toPoke { listener.poke() }
    }

    /// Checks the file's version (the notifier thread calls this every few milliseconds).
    func poll() {
        guard hasListeners, let version = latestVersion() else { return }
        let toPoke = lock.withLock { () -> [StateListener] in
            guard version > seenVersion else { return [] }
            seenVersion = version
            listeners.removeAll { $0.listener == nil }
            return listeners.compactMap(\.listener)
        }
        for listener in toPoke { listener.poke() }
    }

    /// The file's latest committed version, nil when it cannot be read.
    func latestVersion() -> UInt64? {
        withEnv { env -> UInt64? in
            var version: UInt64 = 0
            return orc_env_version(env, &version) == ORC_OK ? version : nil
        } ?? nil
    }

    /// Whether the notifier thread should keep watching this file.
    var needsWatching: Bool {
        !isClosed && (hasListeners || holdLock.withLock { !tracked.isEmpty || hold != .none })
    }
}

/// The one thread that watches every open file with listeners or log holds: it wakes
/// every few milliseconds, polls each file's version, and starts log-hold upkeep.
final class NotifierThread: @unchecked Sendable {
    static let shared = NotifierThread()

    /// How often other processes' commits are looked for.
    static let pollInterval: TimeInterval = 0.004

    private let condition = NSCondition()
    private var watched: [ObjectIdentifier: FileNotifier] = [:]
    private var thread: Thread?

    /// Starts watching `notifier` (and the thread, the first time).
    func watch(_ notifier: FileNotifier) {
        condition.lock()
        watched[ObjectIdentifier(notifier)] = notifier
        if thread == nil {
            let thread = Thread { [unowned self] in self.run() }
            thread.name = "OpenRealm notifier"
            thread.stackSize = 1 << 20
            self.thread = thread
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            watched = watched.filter { $0.value.needsWatching }
            if watched.isEmpty {
                condition.wait()
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.pollInterval))
            }
            let notifiers = Array(watched.values)
            condition.unlock()
            for notifier in notifiers {
                notifier.poll()
                notifier.maintainHoldIfNeeded()
            }
        }
    }
}
