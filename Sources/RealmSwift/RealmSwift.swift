// `import RealmSwift` brings in the whole OpenRealm API, so code written for the
// Realm Swift SDK builds unchanged.
@_exported import OpenRealm
// Sync: App, users, synced configurations, subscriptions and sessions.
@_exported import OpenRealmSync
