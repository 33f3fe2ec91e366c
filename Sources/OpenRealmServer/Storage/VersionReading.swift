/// The app's latest committed server version as a unit of work sees it: under the
/// app's write lock, the version the next history entry follows; in a read, the
/// snapshot's. An engine's own record of what it delivered (``SyncApp/serverVersion``)
/// lags it when another engine shares the store.
package protocol VersionReading: AnyObject {
    /// The latest server version the unit sees (0 before the first).
    func serverVersion() throws -> UInt64
}
