import OpenRealmQuery
import OpenRealmWire

/// Whether an object is in a session's view now, as the fan-out of a changeset asks it
/// (``ChangesetFanOut``): views depend only on an object's own fields, so the answer is
/// the object's state after the changeset against the view's predicate for its class.
protocol ViewMembership {
    /// Whether the object `ref` is stored and in `view`.
    func isInView(_ view: SubscriptionView, _ ref: WireObjectRef) throws -> Bool
}

/// Membership read from the unit that integrated the changeset, which holds the objects
/// as the changeset left them. The same predicate on the same object answers the same
/// within the unit, so each distinct (object, predicate) is asked of the store once,
/// however many sessions share it.
final class LiveMembership: ViewMembership {
    private let objects: any ObjectReading
    private let schema: any QuerySchema
    /// Per object, whether it is stored.
    private var stored: [WireObjectRef: Bool] = [:]
    private var members: [Membership: Bool] = [:]

    /// A view query's outcome for one object.
    private struct Membership: Hashable {
        let ref: WireObjectRef
        let predicate: QueryPredicate
    }

    /// Membership of the objects `objects` holds, views' predicates made against `schema`.
    init(_ objects: any ObjectReading, schema: SyncSchema) {
        self.objects = objects
        self.schema = schema.query
    }

    func isInView(_ view: SubscriptionView, _ ref: WireObjectRef) throws -> Bool {
        guard let predicate = view.predicate(for: ref.className, schema: schema), try isStored(ref) else { return false }
        let membership = Membership(ref: ref, predicate: predicate)
        if let known = members[membership] { return known }
        let inView = !(try objects.matching(predicate, in: ref.className, among: [ref])).isEmpty
        members[membership] = inView
        return inView
    }

    private func isStored(_ ref: WireObjectRef) throws -> Bool {
        if let known = stored[ref] { return known }
        let found = !(try objects.existing([ref])).isEmpty
        stored[ref] = found
        return found
    }
}
