import Foundation
import OpenRealm

extension Realm.Configuration {
    /// A configuration with every setting, a sync configuration included — the
    /// initializer the Realm Swift SDK has. (`syncConfiguration` has no default here so
    /// that calls without it keep using the local initializer.)
    public init(fileURL: URL? = nil,
                inMemoryIdentifier: String? = nil,
                syncConfiguration: SyncConfiguration?,
                encryptionKey: Data? = nil,
                readOnly: Bool = false,
                schemaVersion: UInt64 = 0,
                migrationBlock: Realm.MigrationBlock? = nil,
                deleteRealmIfMigrationNeeded: Bool = false,
                shouldCompactOnLaunch: ((Int, Int) -> Bool)? = nil,
                objectTypes: [ObjectBase.Type]? = nil,
                seedFilePath: URL? = nil) {
        self.init(fileURL: fileURL, inMemoryIdentifier: inMemoryIdentifier, encryptionKey: encryptionKey,
                  readOnly: readOnly, schemaVersion: schemaVersion, migrationBlock: migrationBlock,
                  deleteRealmIfMigrationNeeded: deleteRealmIfMigrationNeeded, shouldCompactOnLaunch: shouldCompactOnLaunch,
                  objectTypes: objectTypes, seedFilePath: seedFilePath)
        self.syncConfiguration = syncConfiguration
    }
}
