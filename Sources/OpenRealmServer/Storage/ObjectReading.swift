import OpenRealmQuery
import OpenRealmWire

/// The synced objects, read in a unit of work, in batches: the engine names objects by
/// their wire references and asks for many at once (a changeset's objects, a view's),
/// so that a store across a network answers each question in one round trip.
/// Predicates cross as the query AST (``QueryPredicate``); the store compiles or
/// evaluates them against its schema.
package protocol ObjectReading: SchemaReading, ObjectImageReading {
    /// Which of `refs` are stored objects.
    ///
    /// - Throws: the store's errors, among them a reference whose primary key does not
    ///   have its class's type, or that names an embedded class.
    func existing(_ refs: [WireObjectRef]) throws -> Set<WireObjectRef>

    /// The top-level objects of `className` matching `predicate`: every such object, or
    /// (`among`) only those among the given references, in their order. A class the
    /// store does not have, or a predicate that does not fit its schema (the class
    /// gained the queried property only later, a rule on a property it lacks), matches
    /// nothing.
    func matching(_ predicate: QueryPredicate, in className: String, among refs: [WireObjectRef]?) throws -> [WireObjectRef]
}

/// Objects' images by reference: what a fan-out sends of an object that enters a view.
/// A unit of work reads them from the store (``ObjectReading``); an engine fanning out a
/// version another engine committed reads them from that version's ``PostImages``.
package protocol ObjectImageReading {
    /// The images of the stored objects among `refs`, in their order; references to
    /// objects that do not exist are left out.
    func images(_ refs: [WireObjectRef]) throws -> [ObjectImage]
}
