import OpenRealmSyncCore

/// A failure of the server's embedded store: the sync core's ``ORCoreError`` (the ORCore
/// status and a message naming the operation and ORCore's reason), under the name the
/// server's public API has always thrown.
///
/// ```text
/// StoreError(status: -41001, "create Task[5]: ORC_ERR_EXISTS: primary key 5 already exists in class 'Task'")
/// ```
public typealias StoreError = ORCoreError
