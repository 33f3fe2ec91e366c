import OpenRealmQuery
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
    /// objects), by object; the objects it may write are absent, as are those that
    /// belong to the server. Per class, each query of the view and the write rule run
    /// once over all of its objects; the objects of a class the view holds whole,
    /// without a write rule, are not even looked up.
    ///
    /// Before the changeset, an object that does not exist and that the changeset does
    /// not create (`creating`) is refused like one the view hides: erasing or changing
    /// a missing key answers as a hidden one does, so the answer does not tell which
    /// keys exist. After it, objects that no longer exist are absent.
    func refusals(_ objects: some ObjectReading, schema: SyncSchema, _ refs: [WireObjectRef],
                  at moment: Moment, creating: Set<WireObjectRef> = []) throws -> [WireObjectRef: String] {
        // A changeset's objects are mostly of one class: decide per run of a class.
        var lastClass = ""
        var unchecked = false
        let checked = refs.filter { ref in
            // By bytes, as the wire names classes.
            if lastClass.isEmpty || !ref.className.utf8.elementsEqual(lastClass.utf8) {
                lastClass = ref.className
                unchecked = ref.className.hasPrefix(StorageConventions.reservedPrefix)
                    || (view.holdsEveryObject(of: ref.className) && view.permissions.writeRule(ref.className) == nil)
            }
            return !unchecked
        }
        guard !checked.isEmpty else { return [:] }
        let found = try objects.existing(checked)
        let when = moment == .before ? "" : " after the write"
        var out: [WireObjectRef: String] = [:]
        // The stored ones per class, in the order the classes first appear.
        var stored: [(className: String, refs: [WireObjectRef])] = []
        var groupOf: [String: Int] = [:]
        for ref in checked {
            guard found.contains(ref) else {
                if moment == .before && !creating.contains(ref) {
                    out[ref] = "write to \(ref) not allowed: \(view.exclusion(ofClass: ref.className))"
                }
                continue
            }
            if let group = groupOf[ref.className] {
                stored[group].refs.append(ref)
            } else {
                groupOf[ref.className] = stored.count
                stored.append((ref.className, [ref]))
            }
        }
        for (className, members) in stored {
            let excluded = try view.exclusions(objects, schema: schema, className: className, refs: members)
            var inView: [WireObjectRef] = []
            for ref in members {
                if let why = excluded[ref] {
                    out[ref] = "write to \(ref) not allowed: \(why)\(when)"
                } else {
                    inView.append(ref)
                }
            }
            guard let rule = view.permissions.writeRule(className), !inView.isEmpty else { continue }
            let writable = Set(try objects.matching(rule, in: className, among: inView))
            for ref in inView where !writable.contains(ref) {
                out[ref] = "write to \(ref) not allowed: the write rule of class '\(className)' does not allow it\(when)"
            }
        }
        return out
    }

    /// Why the session may not write each object of `instructions` (applied, and so
    /// the objects' states after them) because of a link it writes: a link into the
    /// server's own classes, or to an object that is not in the session's view after the
    /// changeset — hidden or missing alike, so that a link's fate does not tell whether
    /// its target exists.
    func linkRefusals(_ objects: some ObjectReading, schema: SyncSchema, _ instructions: [WireInstruction]) throws
        -> [WireObjectRef: String] {
        var targets: [(writer: WireObjectRef, target: WireObjectRef)] = []
        for instruction in instructions {
            Self.forEachLinkWritten(by: instruction) { target in
                if let writer = instruction.topLevelObject { targets.append((writer, target)) }
            }
        }
        guard !targets.isEmpty else { return [:] }
        var distinct: [WireObjectRef] = []
        var seen: Set<WireObjectRef> = []
        for (_, target) in targets where !target.className.hasPrefix(StorageConventions.reservedPrefix) && seen.insert(target).inserted {
            distinct.append(target)
        }
        let visible = try view.containing(objects, schema: schema, distinct)
        var out: [WireObjectRef: String] = [:]
        for (writer, target) in targets where !visible.contains(target) && out[writer] == nil {
            out[writer] = "write to \(writer) not allowed: it links to an object that is not in the session's view"
        }
        return out
    }

    /// Calls `body` with each link an instruction stores (not those it removes), with
    /// no allocation for the instructions that store none.
    private static func forEachLinkWritten(by instruction: WireInstruction, _ body: (WireObjectRef) -> Void) {
        switch instruction {
        case .createObject(_, _, let values), .createEmbeddedObject(_, _, _, let values):
            for case .link(let target) in values.lazy.map(\.value) { body(target) }
        case .set(_, _, .link(let target)), .listInsert(_, _, _, .link(let target)), .listSet(_, _, _, .link(let target)),
             .setInsert(_, _, .link(let target)), .dictionarySet(_, _, _, .link(let target)):
            body(target)
        default:
            return
        }
    }
}
