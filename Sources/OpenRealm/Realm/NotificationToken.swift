import Foundation

/// A registration for change notifications; `invalidate()` stops delivery. Delivery
/// also stops when the token is released, so keep it for as long as you want updates.
///
/// `invalidate()` may be called from any thread; called on the thread (queue, actor)
/// that delivers the notifications, no block runs after it returns.
open class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var onInvalidate: (() -> Void)?

    public init() {}

    init(onInvalidate: @escaping () -> Void) {
        self.onInvalidate = onInvalidate
    }

    deinit {
        lock.lock()
        let action = onInvalidate
        onInvalidate = nil
        lock.unlock()
        action?()
    }

    /// Stops delivery. Safe to call more than once.
    ///
    /// - Returns: true when this call stopped the registration, false when the token
    ///   was already invalidated (as the Realm Swift SDK's token answers; the result may
    ///   be ignored).
    @discardableResult
    open func invalidate() -> Bool {
        lock.lock()
        let action = onInvalidate
        onInvalidate = nil
        lock.unlock()
        action?()
        return action != nil
    }

    var isInvalidated: Bool {
        lock.lock(); defer { lock.unlock() }
        return onInvalidate == nil
    }
}
