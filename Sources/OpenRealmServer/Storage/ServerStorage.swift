/// Where a server keeps its apps and its signing keys: the factory the engine opens
/// apps' storage through (``AppRegistry``), so that the engine never names a store
/// (`docs/design/STORAGE-SEAM.md`). The embedded store's is `EmbeddedStorage`
/// (`Store/Embedded/EmbeddedStorage.swift`: one ORCore file per app under
/// `<data dir>/apps/<app id>/`).
package protocol ServerStorage: AnyObject, Sendable {
    /// Whether other engines share the apps' storage (``StorageTopology``).
    var topology: StorageTopology { get }
    /// The key ring access and refresh tokens are signed with.
    var signingKeys: any SigningKeyStore { get }

    /// The storage of app `appId`, opened (and made, when it has none yet) on first use;
    /// the same object after that.
    ///
    /// - Throws: the store's errors when it cannot be opened.
    func app(_ appId: String) throws -> any AppStorage

    /// Whether app `appId` has storage already (development mode makes apps on first
    /// use, up to a bound: ``appCount()``).
    func hasApp(_ appId: String) -> Bool

    /// How many apps have storage.
    func appCount() -> Int
}
