// `import RealmSwift` brings in the whole OpenRealm API, so code written for the
// Realm Swift SDK builds unchanged.
@_exported import OpenRealm
// Sync: App, users, synced configurations, subscriptions and sessions.
@_exported import OpenRealmSync
// Foundation too, as the Realm Swift SDK's module brings it: the SDK's examples use
// `Date`, `URL`, `FileManager` and `TimeInterval` with `import RealmSwift` alone.
@_exported import Foundation
