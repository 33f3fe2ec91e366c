import Foundation
import ORCore

/// Iterates a `List`, `MutableSet`, `LinkingObjects` or `AnyRealmCollection` over what it
/// held when the loop began, as the Realm Swift SDK's iterator of the same name does:
/// changing the collection in the loop's body (deleting the object just visited,
/// appending) neither skips nor repeats an element, nor makes the loop endless.
///
/// ```swift
/// try realm.write {
///     for dog in person.dogs { realm.delete(dog) }   // visits every dog once
/// }
/// ```
///
/// A collection of objects is remembered by its objects' keys, each accessor made as the
/// loop reaches it (an object the body deleted before it is reached comes out
/// invalidated); a collection of values by its values. A loop whose body invalidates the
/// realm stops at its next step.
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private enum Source {
        case values([Element])
        case objects(Realm, BoundClass, [UInt64], epoch: UInt32)
        case wrapped(AnyIterator<Element>)
    }

    private let source: Source
    private var position = 0

    /// Iterates `values` as they are.
    init(values: [Element]) {
        source = .values(values)
    }

    /// Iterates the objects of class `Element` at `keys` in `realm`, which was last
    /// invalidated at `epoch`.
    init(realm: Realm, keys: [UInt64], epoch: UInt32) {
        guard let type = Element.self as? ObjectBase.Type, let bound = realm._bindOrNil(type) else {
            source = .values([])
            return
        }
        source = .objects(realm, bound, keys, epoch: epoch)
    }

    /// Iterates another collection's iterator.
    init<I: IteratorProtocol>(_ base: I) where I.Element == Element {
        source = .wrapped(AnyIterator(base))
    }

    public mutating func next() -> Element? {
        switch source {
        case .values(let values):
            guard position < values.count else { return nil }
            position += 1
            return values[position - 1]
        case .objects(let realm, let bound, let keys, let epoch):
            guard position < keys.count else { return nil }
            if realm.state.invalidations != epoch {
                preconditionFailure("Collection is no longer valid: the realm of this collection of '\(bound.className)' was invalidated during the iteration.")
            }
            position += 1
            return (realm._accessor(bound, keys[position - 1]) as! Element)
        case .wrapped(var base):
            // AnyIterator keeps its state in a box: the copy advances the original.
            return base.next()
        }
    }
}

extension CollectionLocation {
    /// The iterator of a managed list or set: by key for non-embedded objects, else by
    /// the values read now.
    func snapshotIterator<Element: RealmCollectionValue>(of _: Element.Type, values: () -> [Element]) -> RLMIterator<Element> {
        // Dynamic objects have no model class to make accessors of: read by value.
        if Element.self is ObjectBase.Type, !Element._orIsEmbedded, Element.self != DynamicObject.self {
            return RLMIterator(realm: realm, keys: linkKeys(), epoch: epoch)
        }
        return RLMIterator(values: values())
    }
}
