import OpenRealmQuery
import OpenRealmWire

/// Membership decided from the post-images kept with a history entry (``PostImages``),
/// for a version another engine committed: the store holds the objects as later
/// versions left them, so a live read could send an object its view did not hold at
/// that version, or miss one it did. Views depend only on an object's own fields, so
/// an object is in a view at version `v` exactly when its image at `v` matches the
/// view's predicate, which the Swift ``QueryEvaluator`` decides as ORCore would.
///
/// Each distinct predicate is prepared once, and each (object, predicate) evaluated
/// once, however many sessions share it (as ``LiveMembership``).
///
/// A predicate that does not fit the schema, or reads a property the image lacks (the
/// class gained it after `v`), matches nothing: what a live query against the store as
/// it was at `v` answers.
final class RecordedMembership: ViewMembership {
    private let images: PostImages
    private let schema: any QuerySchema
    private var evaluators: [Query: QueryEvaluator?] = [:]
    private var members: [Membership: Bool] = [:]

    /// A predicate on a class.
    private struct Query: Hashable {
        let predicate: QueryPredicate
        let className: String
    }

    /// A view query's outcome for one object.
    private struct Membership: Hashable {
        let ref: WireObjectRef
        let predicate: QueryPredicate
    }

    /// Membership of the objects `images` shows, views' predicates made against `schema`.
    init(_ images: PostImages, schema: SyncSchema) {
        self.images = images
        self.schema = schema.query
    }

    func isInView(_ view: SubscriptionView, _ ref: WireObjectRef) throws -> Bool {
        guard let predicate = view.predicate(for: ref.className, schema: schema),
              let object = images.object(ref), let image = object.image else { return false }
        let membership = Membership(ref: ref, predicate: predicate)
        if let known = members[membership] { return known }
        var inView = false
        if let evaluator = evaluator(predicate, ref.className) {
            do {
                inView = try evaluator.matches(EvaluableImage(image, partition: object.partition, schema: schema))
            } catch is QueryEvaluationError {
                inView = false
            }
        }
        members[membership] = inView
        return inView
    }

    /// The evaluator of `predicate` on `className`; nil when the predicate does not fit
    /// the schema (an unknown class or property, a type the property lacks).
    private func evaluator(_ predicate: QueryPredicate, _ className: String) -> QueryEvaluator? {
        let query = Query(predicate: predicate, className: className)
        if let known = evaluators[query] { return known }
        let made = try? QueryEvaluator(predicate, className: className, schema: schema)
        evaluators[query] = .some(made)
        return made
    }
}
