/// An object the ``QueryEvaluator`` can test: its property values by name, as plain
/// values. A server's object image (post-images from the history, rows of another
/// database) conforms by answering ``queryProperty(_:)``; the other two requirements
/// have defaults for images that cannot answer them, and a predicate that needs them
/// is then refused with a ``QueryEvaluationError`` rather than answered wrongly.
///
/// ```swift
/// struct Image: QueryEvaluable {
///     var fields: [String: QueryPropertyValue]
///     func queryProperty(_ name: String) -> QueryPropertyValue? { fields[name] }
/// }
/// let adults = try QueryEvaluator(QueryParser.parse("age >= 18").predicate,
///                                 className: "Person", schema: schema)
/// try adults.matches(Image(fields: ["age": .value(.int(21))]))   // true
/// ```
package protocol QueryEvaluable {
    /// The value of the stored property `name` (never a LinkingObjects property), in the
    /// shape the schema gives it; nil when the object has no such property.
    func queryProperty(_ name: String) -> QueryPropertyValue?

    /// The object's key, as object constants (`L3:17`, an object argument) name it.
    /// Needed only when the predicate compares objects with `==` / `!=` / IN; nil by
    /// default (such a comparison is then refused).
    var queryObjectKey: UInt64? { get }

    /// The objects of `className` whose `property` links to this object, each once, in
    /// key order; needed only for LinkingObjects properties and `@links.Class.property`.
    /// nil by default (such a path is then refused).
    func queryLinkingObjects(className: String, property: String) -> [any QueryEvaluable]?
}

extension QueryEvaluable {
    package var queryObjectKey: UInt64? { nil }

    package func queryLinkingObjects(className: String, property: String) -> [any QueryEvaluable]? { nil }
}

/// One property's value as a ``QueryEvaluable`` gives it.
package enum QueryPropertyValue {
    /// A single value that is not a link: `.null` for an optional property without
    /// one; a mixed property's value of any type (an object in a mixed is `.link`).
    case value(QueryValue)
    /// A to-one link: the linked object, or nil.
    case object((any QueryEvaluable)?)
    /// A list (in order) or a set (distinct values, in any order) of values.
    case values([QueryValue])
    /// A list or set of links: the linked objects.
    case objects([any QueryEvaluable])
    /// A dictionary of values: each key once, in any order (keys are matched by their
    /// UTF-8 bytes, so "é" and "e\u{301}" are two keys, as in ORCore).
    case dictionary([(key: String, value: QueryValue)])
    /// A dictionary of links: the linked objects, nil for a null value.
    case objectDictionary([(key: String, value: (any QueryEvaluable)?)])
}

/// Why the evaluator could not answer for an object: the object's image lacks what the
/// predicate reads, or gives it in another shape than the schema says.
package struct QueryEvaluationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The whole message, naming the class and property.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
