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
