import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The embedded store as a ``ServerStorage``: each app's ``AppStore`` in
/// `<data dir>/apps/<app id>/server.realm`, opened on first use, and the signing keys
/// the server was configured with.
///
/// With `sharing`, the apps' stores are ``SharedAppStores``' (opened once in the process
/// and shared with other engines), and the topology is ``StorageTopology/shared``.
final class EmbeddedStorage: ServerStorage, @unchecked Sendable {
    /// The data directory whose `apps/` holds this storage's apps (with `sharing`,
    /// the directory listed for the development bound; the stores are `sharing`'s).
    let dataDirectory: URL
    let signingKeys: any SigningKeyStore
    /// The stores shared with other engines in the process; nil: this storage opens its own.
    let sharing: SharedAppStores?
    private let lock = NSLock()
    /// The apps opened so far (guarded by ``lock``).
    private var apps: [String: EmbeddedAppStorage] = [:]

    var topology: StorageTopology { sharing == nil ? .singleProcess : .shared }

    /// The storage of `dataDirectory`, its tokens signed with `signingKeys` (by default
    /// the data directory's own key files).
    init(dataDirectory: URL, signingKeys: (any SigningKeyStore)? = nil, sharing: SharedAppStores? = nil) {
        self.dataDirectory = dataDirectory
        self.signingKeys = signingKeys ?? ConfiguredSigningKeys(source: .dataDirectory, dataDirectory: dataDirectory)
        self.sharing = sharing
    }

    private var appsDirectory: URL { dataDirectory.appendingPathComponent("apps") }

    func app(_ appId: String) throws -> any AppStorage {
        try embeddedApp(appId)
    }

    /// ``app(_:)`` as the embedded store's own type (the operator's commands).
    func embeddedApp(_ appId: String) throws -> EmbeddedAppStorage {
        lock.lock()
        defer { lock.unlock() }
        if let app = apps[appId] { return app }
        // An earlier build made `apps/` 0755.
        _ = chmod(appsDirectory.path, 0o700)
        let store = try sharing?.store(appId: appId) ?? AppStore(appId: appId, directory: appsDirectory.appendingPathComponent(appId))
        let app = EmbeddedAppStorage(store)
        apps[appId] = app
        return app
    }

    func hasApp(_ appId: String) -> Bool {
        FileManager.default.fileExists(atPath: appsDirectory.appendingPathComponent(appId).path)
    }

    func appCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: appsDirectory.path))?.count ?? 0
    }
}

/// One app's ``AppStore`` as an ``AppStorage``: its units are ORCore transactions (the
/// app's write lock is ORCore's writer lock, so ``write(_:)`` and
/// ``withAppWriteLock(_:)`` are both write transactions), its rate limits the store's
/// (in memory, shared by the engines that share the store).
final class EmbeddedAppStorage: AppStorage, @unchecked Sendable {
    /// The store (the operator's commands and tests reach it directly).
    let store: AppStore
    var rateLimits: any RateLimitStore { store.rateLimits }

    init(_ store: AppStore) {
        self.store = store
    }

    var appId: String { store.appId }
    var accounts: any AccountStore { store }
    var commitFeed: any CommitFeed { store.commitFeed }
    var syncMode: any SyncModeStore { store }

    func keepPostImages() throws { try store.keepPostImages() }

    func storedSchema() throws -> AppSchema { try store.storedSchema() }

    func applyConfiguredSchema(_ schema: AppSchema) throws -> [String] { try store.applyConfiguredSchema(schema) }

    func read<T>(_ body: (any AppReadUnit) throws -> T) throws -> T {
        try store.environment.read { txn in try body(txn) }
    }

    func write<T>(_ body: (any AppWriteUnit) throws -> T) throws -> T {
        try store.environment.write { txn in try body(txn) }
    }

    func withAppWriteLock<T>(_ body: (any AppLockedUnit) throws -> T) throws -> T {
        try store.environment.write { txn in try body(txn) }
    }
}

/// The embedded stores of one data directory (`<data dir>/apps/<app id>/`), each opened
/// once in the process and shared by several engines (``EmbeddedStorage`` instances, one
/// per server, each with a data directory of its own for its lock and keys), whose
/// apps then run in the shared topology (``StorageTopology/shared``): several servers
/// over one store without PostgreSQL, as the tests of catch-up run them. An ORCore
/// file is opened once per process, so the engines share the ``AppStore`` itself.
final class SharedAppStores: @unchecked Sendable {
    /// The data directory whose `apps/` holds the stores.
    let dataDirectory: URL
    private let lock = NSLock()
    private var stores: [String: AppStore] = [:]

    init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    /// The store of `appId`, opened on first use.
    ///
    /// - Throws: the store's errors when it cannot be opened.
    func store(appId: String) throws -> AppStore {
        lock.lock()
        defer { lock.unlock() }
        if let store = stores[appId] { return store }
        let store = try AppStore(appId: appId, directory: dataDirectory.appendingPathComponent("apps").appendingPathComponent(appId))
        stores[appId] = store
        return store
    }
}
