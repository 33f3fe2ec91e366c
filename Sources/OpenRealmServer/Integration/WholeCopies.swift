import OpenRealmWire

/// The objects of one upload part that go back whole to their origin (a changeset made
/// before the origin's last bootstrap, or before a copy the server sent it, touched
/// them). Each goes back once, with the part's last changeset that touches it, as the
/// server holds it then: that copy carries every earlier changeset of the part too. The
/// ones between are acknowledged without it; until the copy arrives the client holds
/// the object without their list edits, as it would after each earlier copy. An upload
/// cut short (a dropped connection, a server stopped) ends with a re-bind, whose
/// bootstrap sends the objects as they are.
struct WholeCopies {
    /// The part's changesets (none when each commits on its own).
    private var changesets: [WireUploadChangeset] = []
    /// Per object, the client version of the part's last changeset that touches it:
    /// made from ``changesets`` when a copy is first due (rarely: most uploads owe none).
    private var lastTouch: [WireObjectRef: UInt64]?
    /// Objects an integrated changeset of the part would have sent back whole.
    private var owed: Set<WireObjectRef> = []

    /// Copies for changesets that each commit on their own: none deferred.
    init() {}

    /// Copies for the changesets of `upload`, integrated in one transaction.
    init(_ upload: WireUpload) {
        changesets = upload.changesets
    }

    var anyOwed: Bool { !owed.isEmpty }

    func isOwed(_ ref: WireObjectRef) -> Bool { owed.contains(ref) }

    /// Whether changeset `clientVersion`, which would send `ref` back whole, sends it
    /// now; when a later changeset of the part touches `ref`, the copy is owed to it.
    mutating func sendsNow(_ ref: WireObjectRef, in clientVersion: UInt64) -> Bool {
        if lastTouch == nil {
            var touched: [WireObjectRef: UInt64] = [:]
            for changeset in changesets {
                for instruction in changeset.instructions {
                    if let ref = instruction.topLevelObject { touched[ref] = changeset.clientVersion }
                }
            }
            lastTouch = touched
        }
        if let last = lastTouch?[ref], last > clientVersion {
            owed.insert(ref)
            return false
        }
        owed.remove(ref)
        return true
    }

    /// `ref` went back whole another way (a refused write reverted).
    mutating func sent(_ ref: WireObjectRef) { owed.remove(ref) }

    /// What the server sent the file whole (``BootstrapCopies``), read once per part: no
    /// view changes while a part is integrated (both hold the app's lock); the copies
    /// the part sends are added, and written back by ``persist(_:ident:)``.
    private var bootstrapped: BootstrapCopies?
    private var recorded = false

    mutating func bootstrapCopies(_ txn: some ClientFileReading, ident: UInt64) throws -> BootstrapCopies {
        if let bootstrapped { return bootstrapped }
        let copies = try txn.bootstrapCopies(ident)
        bootstrapped = copies
        return copies
    }

    /// `ref` went back whole in server version `version` (read the record first).
    mutating func recordWhole(_ ref: WireObjectRef, version: UInt64) {
        guard bootstrapped != nil else { return }
        bootstrapped!.record(version: version, sent: [ref])
        recorded = true
    }

    /// Writes the copies this part sent into the file's record.
    mutating func persist(_ txn: some ClientFileWriting, ident: UInt64) throws {
        guard recorded, bootstrapped != nil else { return }
        bootstrapped!.drop(through: try txn.uploadBase(ident))
        try txn.setBootstrapCopies(bootstrapped!, for: ident)
        recorded = false
    }
}
