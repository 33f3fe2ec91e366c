import Foundation

/// A property that keeps a managed object or `Results` usable from any thread: reading
/// it gives the value as seen by the reading thread's realm, every time.
///
/// ```swift
/// class Loader {
///     @ThreadSafe var task: Task?
/// }
/// loader.task = task                        // on the thread that read it
/// DispatchQueue.global().async {
///     print(loader.task?.taskName ?? "gone")  // resolved in this thread's realm
/// }
/// ```
///
/// Unlike a `ThreadSafeReference`, which resolves once, the property resolves on every
/// read, in `Realm(configuration:)` of the realm the value was assigned from (opened
/// on the reading thread). It reads nil when the object was deleted, when the value
/// assigned was nil, or when that realm cannot be opened. Assigning an unmanaged object
/// is a programmer error, stopped with a precondition message.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (payload: ThreadConfinedPayload, configuration: Realm.Configuration)?

    /// A property holding `wrappedValue`.
    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    /// The value, resolved in the calling thread's realm.
    public var wrappedValue: T? {
        get {
            guard let (payload, configuration) = lock.withLock({ stored }),
                  let realm = try? Realm(configuration: configuration) else { return nil }
            if let value = T._resolve(payload, in: realm) { return value }
            // The thread's realm may read a version older than the one the value was
            // assigned from.
            guard !realm.isInWriteTransaction, !realm.isFrozen, realm.refresh() else { return nil }
            return T._resolve(payload, in: realm)
        }
        set {
            guard let newValue else { return lock.withLock { stored = nil } }
            guard let realm = newValue.realm else {
                preconditionFailure("Only managed objects and results can be kept in a @ThreadSafe property: add the object to a realm first.")
            }
            let payload = newValue._threadConfinedPayload
            lock.withLock { stored = (payload, realm.configuration) }
        }
    }
}
