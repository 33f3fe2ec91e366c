/// How many engines serve one app's store.
///
/// - `singleProcess` (the default): one engine, which has delivered every version it
///   committed; nothing to catch up, no post-images kept.
/// - `shared`: several engines (server processes over one PostgreSQL database; in one
///   process, several servers over one embedded store, as the tests run them). Each
///   entry keeps the post-images its fan-out needs (``PostImages``), and each engine
///   catches up on the others' versions before its own integrations
///   (``SyncApp/catchUp()``).
package enum StorageTopology: Sendable, Hashable {
    case singleProcess
    case shared
}
