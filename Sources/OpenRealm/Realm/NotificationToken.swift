import Foundation

/// A registration for change notifications; `invalidate()` stops delivery.
open class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var onInvalidate: (() -> Void)?

    public init() {}

    init(onInvalidate: @escaping () -> Void) {
        self.onInvalidate = onInvalidate
    }

    /// Stops delivery. Safe to call more than once.
    open func invalidate() {
        lock.lock()
        let action = onInvalidate
        onInvalidate = nil
        lock.unlock()
        action?()
    }

    var isInvalidated: Bool {
        lock.lock(); defer { lock.unlock() }
        return onInvalidate == nil
    }
}
