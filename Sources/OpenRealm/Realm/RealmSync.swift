import ORCore

/// What sync adds to a realm's open, writes, commits and copies: the one way the local
/// database knows sync. A synced configuration carries a value of it
/// (`Realm.Configuration.sync`, set through the sync module's `syncConfiguration`); a
/// local configuration carries none, and none of these steps run for it.
///
/// The sync module (`OpenRealmSync`) implements it; the local database never names that
/// module, so it builds and links without networking.
package protocol RealmSync: Sendable {
    /// The sync step of an asynchronous open, before the realm is opened: starts the
    /// file's session and, as `behavior` says, waits for the server's data.
    func prepareOpen(_ configuration: Realm.Configuration, behavior: Realm.OpenBehavior) async throws

    /// `writeCopy(configuration:)` when the source or the destination is synced (this
    /// value is the destination's when it has one, else the source's).
    func writeCopy(of realm: Realm, to configuration: Realm.Configuration) throws

    /// Called in the write transaction `txn` before an object of the top-level class
    /// `className` is added to or created in the realm (`add`, `create`, and unmanaged
    /// objects reached through links). Throwing fails the write transaction: `write`
    /// throws the error and commits nothing. Changes to managed objects are not checked.
    func checkAdding(_ className: String, to realm: Realm, in txn: OpaquePointer) throws

    /// Called with the write transaction `txn` just before `commitWrite` commits it, so
    /// that sync records what it must in the same commit. It must not change objects.
    func willCommit(_ realm: Realm, _ txn: OpaquePointer)

    /// Called after each local commit, so that the realm's changes upload at once.
    func didCommit(_ realm: Realm)
}
