// The server's app configuration type, named apart from the client's
// `OpenRealmSync.AppConfiguration` (the module `OpenRealmServer` has a class of the same
// name, so `OpenRealmServer.AppConfiguration` does not spell it). This file imports the
// server module only.
import OpenRealmServer

typealias ServerAppConfiguration = AppConfiguration
