import Foundation

/// The realm files this process has open, one `RealmCoordinator` (one ORCore
/// environment) per path.
///
/// A path has one coordinator at a time, so a file has one notifier and one set of
/// class bindings, and an in-memory realm's files, deleted when its coordinator
/// closes, are never deleted from under a newer coordinator. A coordinator's entry
/// therefore stays in the table until its environment has closed (its `deinit` calls
/// `closed`), and an open of the same path in the meantime waits for that.
///
/// Threading: any thread; a condition lock guards the table. No strong reference to a
/// coordinator is released while the lock is held, so a `deinit` never runs inside it.
final class OpenFiles: @unchecked Sendable {
    private struct Entry {
        weak var coordinator: RealmCoordinator?
        /// The environment the entry stands for, to tell a closing coordinator's entry
        /// from a newer one.
        let env: OpaquePointer
    }

    private let condition = NSCondition()
    private var table: [String: Entry] = [:]

    /// The coordinator of `path`: the open one, or a new one from `open` once any
    /// earlier coordinator of the path has finished closing.
    func coordinator(_ path: String, open: () throws(RealmError) -> RealmCoordinator) throws(RealmError) -> RealmCoordinator {
        condition.lock()
        defer { condition.unlock() }
        while let entry = table[path] {
            if let existing = entry.coordinator { return existing }
            condition.wait()  // its deinit is closing the environment
        }
        let coordinator = try open()
        table[path] = Entry(coordinator: coordinator, env: coordinator.env)
        return coordinator
    }

    /// Called by a coordinator's `deinit` once its environment is closed.
    func closed(_ path: String, _ env: OpaquePointer) {
        condition.lock()
        if table[path]?.env == env { table[path] = nil }
        condition.broadcast()
        condition.unlock()
    }

    /// Lets `path` be opened anew while its current coordinator lives on: the next open
    /// of the path makes a new environment (the file there now), and the coordinator
    /// closes later without touching the new entry. For a file moved aside or deleted
    /// while sync still held it (a client reset's action token).
    func forget(_ path: String) {
        condition.lock()
        table[path] = nil
        condition.broadcast()
        condition.unlock()
    }

    /// Whether this process has the file open (or is closing it).
    func isOpen(_ path: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return table[path] != nil
    }
}
