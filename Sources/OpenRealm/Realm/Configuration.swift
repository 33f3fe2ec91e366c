import Foundation
import Synchronization

extension Realm {
    /// The block a migration runs: the migration, and the schema version the file had.
    public typealias MigrationBlock = (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

    /// Where a realm lives and how it opens: its file (or in-memory identifier), schema
    /// version and migration, the model classes, and the open mode.
    public struct Configuration: @unchecked Sendable {
        private static let defaultStore = Mutex<Configuration?>(nil)

        /// The configuration `Realm()` uses; `default.realm` in the working directory unless set.
        public static var defaultConfiguration: Configuration {
            get { defaultStore.withLock { $0 } ?? Configuration() }
            set { defaultStore.withLock { $0 = newValue } }
        }

        static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        private var _fileURL: URL?
        private var _inMemoryIdentifier: String?

        /// The file of the realm. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            get { _fileURL }
            set {
                _fileURL = newValue
                if newValue != nil { _inMemoryIdentifier = nil }
            }
        }

        /// The name of an in-memory realm: no file in the user's directories, shared by every
        /// instance with the same identifier in this process, discarded when the last one
        /// closes. Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil { _fileURL = nil }
            }
        }

        /// Not supported: OpenRealm does not encrypt files. Opening with a key throws.
        public var encryptionKey: Data?
        /// Open without writing: writes throw, and the file must exist with the models' schema.
        public var readOnly: Bool = false
        /// The version of the models' schema; raise it with every change that needs a migration.
        public var schemaVersion: UInt64 = 0
        /// Runs when the file's schema version is lower than `schemaVersion`.
        public var migrationBlock: MigrationBlock?
        /// Delete the file instead of failing when the schema changed without a migration.
        public var deleteRealmIfMigrationNeeded: Bool = false
        /// Asked on the first open in the process with the file's total and used bytes;
        /// returning true compacts the file before it opens.
        public var shouldCompactOnLaunch: ((_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// The model classes of the realm. When nil, the schema is every model class this
        /// process has used so far, and classes used later are added on first write. Classes
        /// that cannot join that schema unambiguously (an invalid declaration, or a stored
        /// name two known classes share) are left out until used, when their problem is thrown.
        public var objectTypes: [ObjectBase.Type]?
        /// A realm file copied to `fileURL` when no file exists there yet.
        public var seedFilePath: URL?
        /// How commits reach the disk (an OpenRealm addition; the first open of a file in
        /// the process decides). `.full`: a commit is on disk when `commitWrite` returns.
        /// `.skipMetaSync`: the data is synced but not the page naming the latest commit, so
        /// a system crash (not a process crash) may lose the last commits but never
        /// corrupts the file — about half the cost of a durable commit.
        public var durability: Durability = .full

        /// How commits reach the disk; see `durability`.
        public enum Durability: Sendable {
            case full
            case skipMetaSync
        }

        /// Accepted for compatibility; OpenRealm keeps no limit on pinned versions.
        public var maximumNumberOfActiveVersions: UInt?
        /// What sync adds to this realm (set through the sync module's
        /// `syncConfiguration`); nil for a local realm.
        package var sync: (any RealmSync)?

        public init(fileURL: URL? = nil,
                    inMemoryIdentifier: String? = nil,
                    encryptionKey: Data? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: ((Int, Int) -> Bool)? = nil,
                    objectTypes: [ObjectBase.Type]? = nil,
                    seedFilePath: URL? = nil) {
            if let inMemoryIdentifier {
                _inMemoryIdentifier = inMemoryIdentifier
                _fileURL = nil
            } else {
                _fileURL = fileURL ?? Self.defaultFileURL
            }
            if fileURL != nil && inMemoryIdentifier != nil {
                // Both given: the identifier wins, as setting it last would.
                _fileURL = nil
            }
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
        }

        /// The path ORCore opens: the file, or the process-private file behind an in-memory realm.
        package func resolvedPath() throws(RealmError) -> String {
            if let identifier = _inMemoryIdentifier {
                guard !identifier.isEmpty else {
                    throw RealmError(.invalidArgument, "The in-memory identifier must not be empty.")
                }
                return InMemoryStore.path(for: identifier)
            }
            guard let url = _fileURL else {
                throw RealmError(.invalidArgument, "The configuration has neither a fileURL nor an inMemoryIdentifier.")
            }
            guard url.isFileURL else {
                throw RealmError(.invalidArgument, "The fileURL '\(url)' is not a file URL.")
            }
            return url.path
        }

        package var isInMemory: Bool { _inMemoryIdentifier != nil }
    }
}

extension Realm.Configuration: CustomStringConvertible {
    public var description: String {
        var parts: [String] = []
        if let fileURL { parts.append("fileURL: \(fileURL.path)") }
        if let inMemoryIdentifier { parts.append("inMemoryIdentifier: \(inMemoryIdentifier)") }
        parts.append("schemaVersion: \(schemaVersion)")
        if readOnly { parts.append("readOnly") }
        if let objectTypes { parts.append("objectTypes: [\(objectTypes.map { $0.className() }.joined(separator: ", "))]") }
        return "Realm.Configuration(\(parts.joined(separator: ", ")))"
    }
}
