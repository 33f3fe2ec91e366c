import OpenRealm

extension Realm {
    /// The sync session of a synced realm (started if it was not); nil for a local realm.
    public var syncSession: SyncSession? {
        guard configuration.syncConfiguration != nil else { return nil }
        return try? SyncSessionRegistry.shared.session(for: configuration)
    }

    /// The subscriptions of a flexible sync realm. For any other realm the set is empty
    /// and its `update` throws.
    public var subscriptions: SyncSubscriptionSet {
        guard let sync = configuration.syncConfiguration, sync.enableFlexibleSync,
              let session = try? SyncSessionRegistry.shared.session(for: configuration) else {
            return SyncSubscriptionSet(store: nil, session: nil)
        }
        return SyncSubscriptionSet(store: session.subscriptionStore, session: session)
    }
}
