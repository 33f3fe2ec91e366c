import OpenRealmWire

/// What one server version left of the objects its changeset touched: each top-level
/// object's image after the changeset (nil when it was erased), with its hidden
/// partition (``HiddenColumn/partition``). Kept with the history entry when the store
/// is shared by several engines (``StorageTopology/shared``): an engine that fans out
/// version `v` after later versions committed decides view membership, and sends
/// objects that enter a view, as they were at `v` (``RecordedMembership``), not as the
/// store holds them now. Views depend only on an object's own fields
/// (``SubscriptionValidator``), so the image of the object itself is all they need.
package struct PostImages: Sendable, Hashable {
    /// One object after the changeset.
    package struct Object: Sendable, Hashable {
        package var ref: WireObjectRef
        /// The object's image; nil when it is not stored after the changeset.
        package var image: ObjectImage?
        /// The object's hidden partition (a partition session created it in a class
        /// without the partition property); nil when it has none.
        package var partition: String?

        package init(ref: WireObjectRef, image: ObjectImage?, partition: String?) {
            self.ref = ref
            self.image = image
            self.partition = partition
        }
    }

    /// The objects, in the order the changeset first touched them.
    package private(set) var objects: [Object]
    private var index: [WireObjectRef: Int]

    package init(_ objects: [Object]) {
        self.objects = objects
        var index: [WireObjectRef: Int] = [:]
        for (i, object) in objects.enumerated() { index[object.ref] = i }
        self.index = index
    }

    /// The object `ref` after the changeset; nil when the changeset did not touch it.
    package func object(_ ref: WireObjectRef) -> Object? {
        index[ref].map { objects[$0] }
    }
}

extension PostImages: ObjectImageReading {
    /// The images of the objects among `refs` that are stored after the changeset, in
    /// their order.
    package func images(_ refs: [WireObjectRef]) throws -> [ObjectImage] {
        refs.compactMap { object($0)?.image }
    }
}

/// The post-images of the history, read in a unit of work.
package protocol PostImageReading: AnyObject {
    /// The post-images kept with the entry of `serverVersion`; nil when none were kept
    /// (the entry was made while the store was not shared, or it is trimmed).
    func postImages(_ serverVersion: UInt64) throws -> PostImages?
}

/// The post-images, written: only under the app's write lock, in the unit that appends
/// the history entry.
package protocol PostImageWriting: PostImageReading {
    /// Keeps with the entry of `serverVersion` the objects `refs` as the unit holds them
    /// now (``PostImages``).
    func recordPostImages(of refs: [WireObjectRef], serverVersion: UInt64) throws
}
