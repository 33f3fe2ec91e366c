import Foundation
import OpenRealmServer

extension FuzzTarget {
    /// An app configuration file (`--config app.json`) through `ServerAppConfiguration.parse`,
    /// which also parses the permission rules (RQL with `%user` placeholders).
    ///
    /// Checks: no crash; a configuration that parses also passes `validate()`.
    static let appConfig = FuzzTarget(
        name: "app-config",
        summary: "app configuration JSON (auth, tokens, limits, queryable fields, rules); parsed ones validate",
        run: { bytes in
            guard let config = try? ServerAppConfiguration.parse(Data(bytes), source: "fuzz.json") else { return }
            do {
                try config.validate()
            } catch {
                fuzzFailure("a parsed configuration fails validate(): \(error)")
            }
        },
        seeds: {
            let configs = [
                #"{"appId":"todo"}"#,
                #"""
                {"appId": "todo", "developmentMode": false,
                 "auth": {"anonymous": true, "emailPassword": false,
                          "customJWT": {"key": "0123456789abcdef0123456789abcdef", "audience": "todo"}},
                 "tokens": {"accessTokenLifetimeSeconds": 1800, "refreshTokenLifetimeSeconds": 5184000},
                 "queryableFields": {"Task": ["owner", "status"]}, "indexedQueryableField": "owner",
                 "limits": {"maxQueryBytes": 262144, "clientRetentionSeconds": 2592000, "historyTrimIntervalVersions": 100},
                 "rules": {"Task": {"read": "owner == %user.id OR shared == true", "write": "owner == %user.id"},
                           "Note": {"read": "TRUEPREDICATE"}}}
                """#,
                #"{"appId":"parts","partitionField":"_partition","rules":{"Item":{"write":"owner == %user.email"}}}"#,
            ]
            return configs.enumerated().map { (name: "config-\($0.offset).json", bytes: Array($0.element.utf8)) }
        }
    )
}
