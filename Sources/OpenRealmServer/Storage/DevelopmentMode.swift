/// The sync mode of an app that follows its first client (development mode without a
/// configured partition key): partition-based or flexible, decided once, by the first
/// bind, for every process serving the app.
package protocol SyncModeStore: Sendable {
    /// Whether the app was decided partition-based; nil while undecided.
    func decidedPartitioned() throws -> Bool?

    /// Decides the mode as `partitioned` unless it is decided already (the first caller
    /// wins, across processes).
    ///
    /// - Returns: the mode as decided, and whether this call decided it.
    func decide(partitioned: Bool) throws -> (partitioned: Bool, decidedNow: Bool)
}

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
