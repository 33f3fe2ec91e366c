import ORCore
import OpenRealmWire

/// The embedded store's post-images (``PostImages``): a table `__post_images` (key: the
/// server version, column `images`: ``PostImages/encoded()``'s bytes) beside
/// `__history`, made only when the store is shared by several engines
/// (``AppStore/keepPostImages()``). A store never shared has no such table, and its
/// files are as before.
extension StoreTransaction: PostImageWriting {
    static let postImagesTable = "__post_images"

    package func postImages(_ serverVersion: UInt64) throws -> PostImages? {
        guard serverVersion <= UInt64(Int64.max), try findClass(Self.postImagesTable) != nil,
              let row = try readRow(Self.postImagesTable, .int(Int64(serverVersion))),
              let bytes = row.binary("images") else { return nil }
        do {
            return try PostImages(decoding: bytes)
        } catch {
            throw StoreError(status: 0, "the post-images of server version \(serverVersion) are damaged: \(error)")
        }
    }

    package func recordPostImages(of refs: [WireObjectRef], serverVersion: UInt64) throws {
        let schema = try schema()
        var images: [WireObjectRef: ObjectImage] = [:]
        for image in try self.images(refs) { images[image.ref] = image }
        var objects: [PostImages.Object] = []
        objects.reserveCapacity(refs.count)
        for ref in refs {
            let image = images[ref]
            var partition: String?
            if image != nil, let cls = schema.topLevelClass(named: ref.className), let column = cls.hiddenColumn(.partition),
               let key = try findObject(cls.slot.table, ref.primaryKey), case .string(let value) = try get(cls.slot.table, key, column.slot.column) {
                partition = value
            }
            objects.append(PostImages.Object(ref: ref, image: image, partition: partition))
        }
        try insertRow(Self.postImagesTable, [
            "_id": .int(Int64(serverVersion)), "images": .binary(try PostImages(objects).encoded()),
        ])
    }

    /// Drops the post-images of versions `first ... last` (trimmed with their entries).
    func dropPostImages(_ first: UInt64, through last: UInt64) throws {
        guard first <= last, try findClass(Self.postImagesTable) != nil else { return }
        for version in first...last { try deleteRow(Self.postImagesTable, .int(Int64(version))) }
    }
}

extension AppStore {
    /// Makes the store keep post-images with its history entries from now on (the
    /// table, unless it exists): call when several engines share the store.
    func keepPostImages() throws {
        try environment.write { txn in
            try txn.ensureTable(StoreTransaction.postImagesTable, key: ORC_TYPE_INT, columns: [("images", ORC_TYPE_BINARY, false)])
        }
    }
}
