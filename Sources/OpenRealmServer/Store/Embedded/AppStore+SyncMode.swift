/// The development sync mode in the embedded store's metadata; the store's write
/// transaction makes the first decision the only one.
extension AppStore: SyncModeStore {
    /// The store's metadata value `development.partitioned`: 1 partition-based, 0 flexible.
    private static let partitionedName = "development.partitioned"

    package func decidedPartitioned() throws -> Bool? {
        try environment.read { txn in try txn.metaUInt64(Self.partitionedName) }.map { $0 == 1 }
    }

    package func decide(partitioned: Bool) throws -> (partitioned: Bool, decidedNow: Bool) {
        try environment.write { txn in
            if let decided = try txn.metaUInt64(Self.partitionedName) { return (decided == 1, false) }
            try txn.setMeta(Self.partitionedName, partitioned ? 1 : 0)
            return (partitioned, true)
        }
    }
}
