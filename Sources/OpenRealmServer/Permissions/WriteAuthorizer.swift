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

    /// Why the session may not write each of `refs` (distinct references: a changeset's
    /// objects), by object; the objects it may write are absent, as are those that do
    /// not exist at that moment or belong to the server. Per class, each query of the
    /// view and the write rule run once over all of its objects; the objects of a class
    /// the view holds whole, without a write rule, are not even looked up.
    func refusals(_ txn: StoreTransaction, schema: any QuerySchema, _ refs: [WireObjectRef],
                  at moment: Moment) throws -> [WireObjectRef: String] {
        // A changeset's objects are mostly of one class: decide per run of a class.
        var lastClass = ""
        var unchecked = false
        let checked = refs.filter { ref in
            // By bytes, as the wire names classes.
            if lastClass.isEmpty || !ref.className.utf8.elementsEqual(lastClass.utf8) {
                lastClass = ref.className
                unchecked = ref.className.hasPrefix(AppStore.reservedPrefix)
                    || (view.holdsEveryObject(of: ref.className) && view.permissions.write[ref.className] == nil)
            }
            return !unchecked
        }
        guard !checked.isEmpty else { return [:] }
        let stored = try txn.storedObjects(checked) {
            try txn.findClass($0)?.table
        }
        let when = moment == .before ? "" : " after the write"
        var out: [WireObjectRef: String] = [:]
        for (className, objects) in stored {
            let excluded = try view.exclusions(txn, schema: schema, className: className, keys: objects.map(\.key))
            var inView: [(ref: WireObjectRef, key: UInt64)] = []
            for object in objects {
                if let why = excluded[object.key] {
                    out[object.ref] = "write to \(object.ref) not allowed: \(why)\(when)"
                } else {
                    inView.append(object)
                }
            }
            guard let rule = view.permissions.write[className], !inView.isEmpty else { continue }
            let writable = Set(try SubscriptionView.matching(txn, schema: schema, className: className, predicate: rule,
                                                             domain: inView.map(\.key)))
            for object in inView where !writable.contains(object.key) {
                out[object.ref] = "write to \(object.ref) not allowed: the write rule of class '\(className)' does not allow it\(when)"
            }
        }
        return out
    }
}
