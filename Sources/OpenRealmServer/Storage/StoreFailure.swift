/// A failure of the store itself rather than of what the engine asked of it: a
/// database that cannot be reached or did not answer in time, a connection lost (a
/// commit among them), a transaction the database rolled back to break a conflict.
/// Such a failure is not the upload's fault: the engine neither refuses the changeset
/// (`badChangeset`) nor acknowledges it, and tells the client to try again.
///
/// The PostgreSQL store's errors conform; the embedded store's never fail this way (a
/// failed ORCore write is the changeset's or the disk's, and the process's to report).
package protocol StoreFailure: Error, CustomStringConvertible {
    /// Whether the store rolled the unit back itself to break a conflict with another
    /// one (a serialization failure, a deadlock) and said so: nothing of it was
    /// committed, and running it again at once may succeed.
    var isConflictRollback: Bool { get }

    /// Whether asking again later may succeed: the store was unreachable, timed out,
    /// dropped the connection (a commit whose outcome the engine never heard of
    /// included), or rolled back a conflict.
    var isTransient: Bool { get }
}
