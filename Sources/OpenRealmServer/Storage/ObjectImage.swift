import OpenRealmWire

/// A top-level object as plain values: its single values, its collections' elements
/// and its embedded objects with their own contents, as one read of the store found
/// them. ``ObjectSnapshot`` renders an image to the instructions that recreate the
/// object on a client; a store that keeps objects elsewhere than in ORCore hands the
/// engine the same values.
package struct ObjectImage: Sendable, Hashable {
    /// The object's class and primary key.
    package var ref: WireObjectRef
    /// Its properties but the primary key, in the schema's order (``StoredClass/properties``).
    package var properties: [Property]

    package init(ref: WireObjectRef, properties: [Property]) {
        self.ref = ref
        self.properties = properties
    }

    /// A property and what it holds.
    package struct Property: Sendable, Hashable {
        package var name: String
        package var value: Value

        package init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// What a property holds.
    package enum Value: Sendable, Hashable {
        /// A single value (a link to a top-level object among them).
        case single(WireValue)
        /// A single link to an embedded object; nil when it is null.
        case embedded(Embedded?)
        /// A list's elements, in order.
        case list([Element])
        /// A set's elements, in the store's order.
        case set([WireValue])
        /// A dictionary's entries, in key order.
        case dictionary([Entry])
    }

    /// An element of a list or a dictionary: a value (a null link to an embedded object
    /// is the value null) or an embedded object.
    package enum Element: Sendable, Hashable {
        case value(WireValue)
        case embedded(Embedded)
    }

    /// A dictionary entry.
    package struct Entry: Sendable, Hashable {
        package var key: String
        package var element: Element

        package init(_ key: String, _ element: Element) {
            self.key = key
            self.element = element
        }
    }

    /// An embedded object: its properties, in its class's order.
    package struct Embedded: Sendable, Hashable {
        package var properties: [Property]

        package init(properties: [Property]) {
            self.properties = properties
        }
    }
}
