import OpenRealm
import OpenRealmWire

/// Decides whether a session may write an object: the object must be in the session's
/// view (its subscriptions or partition, and the read rules) and match its class's
/// write rule, both before the changeset (when it exists then) and after it (when it
/// still exists). A refused object's writes are reverted by a compensating write.
struct WriteAuthorizer {
    let view: SubscriptionView

    /// When the object is checked.
    enum Moment {
        /// Before the changeset is applied: the object as it was.
        case before
        /// After: the object as the changeset left it.
        case after
    }

    /// Why the session may not write `ref`, or nil when it may (or the object does not
    /// exist at that moment, or belongs to the server).
    func refusal(_ txn: StoreTransaction, schema: any QuerySchema, _ ref: WireObjectRef, at moment: Moment) throws -> String? {
        guard !ref.className.hasPrefix(AppStore.reservedPrefix), let cls = try txn.findClass(ref.className),
              let key = try txn.findObject(cls.table, ref.primaryKey) else { return nil }
        let when = moment == .before ? "" : " after the write"
        if let why = try view.exclusion(txn, schema: schema, ref, key: key) {
            return "write to \(ref) not allowed: \(why)\(when)"
        }
        if let rule = view.permissions.write[ref.className],
           try SubscriptionView.matching(txn, schema: schema, className: ref.className, predicate: rule, domain: [key]).isEmpty {
            return "write to \(ref) not allowed: the write rule of class '\(ref.className)' does not allow it\(when)"
        }
        return nil
    }
}
