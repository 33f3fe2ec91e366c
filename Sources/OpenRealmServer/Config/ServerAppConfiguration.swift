import Foundation

/// One app's configuration, from `--config app.json`. Without one the server runs in
/// development mode (``ServerConfiguration/app`` nil): any app id, anonymous and
/// email/password auth, schema from the clients, every field queryable.
///
/// ```json
/// {
///   "appId": "todo",
///   "developmentMode": true,
///   "auth": { "anonymous": true, "emailPassword": true, "apiKeys": true },
///   "tokens": { "accessTokenLifetimeSeconds": 1800, "refreshTokenLifetimeSeconds": 5184000 },
///   "queryableFields": { "Task": ["owner", "status"] },
///   "indexedQueryableField": "owner",
///   "limits": { "maxQueryBytes": 262144, "clientRetentionSeconds": 2592000, "historyTrimIntervalVersions": 100 },
///   "rules": { "Task": { "read": "owner == %user.id OR shared == true", "write": "owner == %user.id" } },
///   "rateLimits": { "loginPerAddress": { "burst": 100, "perMinute": 60 }, "loginPerEmail": { "burst": 10, "perMinute": 10 } },
///   "schema": { "Task": { "primaryKey": "_id", "properties": { "_id": { "type": "objectId" }, "owner": { "type": "string" } } } }
/// }
/// ```
///
/// `"schema"` is the app's synced schema (``AppSchema``), applied when the server starts.
///
/// `"partitionField": "_partition"` makes the app partition-based: sessions bind with a
/// partition value instead of subscribing, and flexible binds are refused.
public struct ServerAppConfiguration: Sendable, Hashable {
    /// The app id; the only one the server then serves.
    public var appId: String
    /// Whether clients may declare classes and properties (additive only). Off unless
    /// the configuration says so: the schema then comes from ``schema`` or from the
    /// operator (`openrealm-server schema apply`), and no client can declare a property's
    /// type first for everyone.
    public var developmentMode: Bool = false
    /// The synced schema, applied (additively) when the server starts; nil leaves the
    /// stored schema as it is.
    public var schema: AppSchema?
    /// Whether anonymous login is enabled (off unless the configuration says so).
    public var anonymousAuth: Bool = false
    /// Whether email/password registration and login are enabled.
    public var emailPasswordAuth: Bool = true
    /// How the email/password provider confirms addresses and resets passwords.
    public var emailConfirmation = EmailConfirmation()
    /// Whether users may create API keys and log in with them (`api-key`).
    public var apiKeyAuth: Bool = true
    /// Login attempts (every provider, and registration) allowed from one remote
    /// address: a token bucket; past it, `429 TooManyRequests` with `Retry-After`.
    public var loginRateLimitPerAddress = RateLimit(burst: 100, perMinute: 60)
    /// Email/password login attempts allowed for one email, whatever the address.
    public var loginRateLimitPerEmail = RateLimit(burst: 10, perMinute: 10)
    /// New client files (a bind without a file identity: a fresh install, a reset) one
    /// user may make: each is a permanent record of the store.
    public var clientFileRateLimit = RateLimit(burst: 100, perMinute: 20)
    /// Custom JWT login, when enabled.
    public var customJWT: CustomJWTConfiguration?
    /// Access token lifetime in seconds.
    public var accessTokenLifetime: Int64 = 30 * 60
    /// Refresh token lifetime in seconds.
    public var refreshTokenLifetime: Int64 = 60 * 24 * 3600
    /// The subscription rules.
    public var rules = SubscriptionRules()
    /// Per class, the read and write rules (``ClassPermissions``). The entry `"*"` gives
    /// the rules of every class without its own, and each rule an entry lacks; without
    /// it such classes and rules deny (`"*": {"read": "TRUEPREDICATE", "write":
    /// "TRUEPREDICATE"}` opens them to every user).
    public var permissions: [String: ClassPermissions] = [:]
    /// The partition field of a partition-based app; nil for flexible sync.
    public var partitionField: String?
    /// How long, in seconds, the history a client file still needs is kept after the
    /// file was last seen (bound or uploaded); a file gone longer gets
    /// `clientResetRequired` when it comes back and the history it needs is trimmed.
    public var clientRetentionSeconds: Int64 = 30 * 24 * 3600
    /// How many server versions pass between two attempts to trim the history.
    public var historyTrimIntervalVersions: Int64 = 100

    /// A configuration for `appId` with the production defaults: no development-mode
    /// schema changes, no anonymous login, every class denied until rules say otherwise.
    public init(appId: String) {
        self.appId = appId
    }

    /// The configuration development mode (no `--config`) gives every app: schema from
    /// the clients, anonymous login, every class readable and writable by every user.
    public static func development(appId: String) -> ServerAppConfiguration {
        var config = ServerAppConfiguration(appId: appId)
        config.developmentMode = true
        config.anonymousAuth = true
        config.permissions[AppRules.everyOtherClass] = ClassPermissions(read: "TRUEPREDICATE", write: "TRUEPREDICATE")
        return config
    }

    /// Reads a configuration file. A relative `auth.customJWT.keyFile` is found beside it.
    ///
    /// - Throws: ``ServerError`` naming the file and the bad key: unreadable (with the
    ///   OS reason), a JSON syntax error (with its line and column), not an object, an
    ///   unknown key, a value of the wrong type, a missing or invalid `appId`.
    public static func load(from url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerAppConfiguration {
        let data = try SmallFile.read(url, what: "the app configuration", limit: 16 << 20)
        return try parse(data, source: url.lastPathComponent, baseDirectory: url.deletingLastPathComponent(), environment: environment)
    }

    /// Parses a configuration from JSON bytes; `source` names it in errors, a relative
    /// `auth.customJWT.keyFile` is found in `baseDirectory` (default: the current
    /// directory), and `auth.customJWT.keyEnv` is looked up in `environment`.
    public static func parse(_ data: Data, source: String = "app configuration", baseDirectory: URL? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerAppConfiguration {
        let root = try ConfigJSON.object(data, source: source)
        let reader = ConfigReader(source: source)
        try reader.only(root, ["appId", "developmentMode", "auth", "tokens", "queryableFields", "indexedQueryableField", "limits",
                              "rules", "partitionField", "rateLimits", "schema"], at: "")
        guard let appId = try reader.string(root["appId"], "appId") else { throw ServerError("\(source): 'appId' is required") }
        guard AppRegistry.isValidAppId(appId) else {
            throw ServerError("\(source): 'appId' \"\(appId)\" must be 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        var config = ServerAppConfiguration(appId: appId)
        if let dev = try reader.bool(root["developmentMode"], "developmentMode") { config.developmentMode = dev }
        if let schema = root["schema"] { config.schema = try AppSchema.parse(schema, source: source) }
        if let auth = try reader.object(root["auth"], "auth") {
            try reader.only(auth, ["anonymous", "emailPassword", "apiKeys", "customJWT"], at: "auth.")
            if let jwt = try reader.object(auth["customJWT"], "auth.customJWT") {
                try reader.only(jwt, ["key", "keyFile", "keyEnv", "audience", "issuer", "maxLifetimeSeconds"], at: "auth.customJWT.")
                let key = try reader.secret(jwt, "auth.customJWT", baseDirectory: baseDirectory, environment: environment)
                config.customJWT = CustomJWTConfiguration(
                    key: key, audience: try reader.string(jwt["audience"], "auth.customJWT.audience"),
                    issuer: try reader.string(jwt["issuer"], "auth.customJWT.issuer"),
                    maxLifetime: try reader.positiveInt(jwt["maxLifetimeSeconds"], "auth.customJWT.maxLifetimeSeconds") ?? 3600)
            }
            if let v = try reader.bool(auth["anonymous"], "auth.anonymous") { config.anonymousAuth = v }
            if let settings = auth["emailPassword"] as? [String: Any] {
                try reader.only(settings, ["autoConfirm", "confirmationURL", "resetURL", "tokenLifetimeSeconds"], at: "auth.emailPassword.")
                var confirmation = EmailConfirmation()
                if let v = try reader.bool(settings["autoConfirm"], "auth.emailPassword.autoConfirm") { confirmation.autoConfirm = v }
                confirmation.confirmationURL = try reader.url(settings["confirmationURL"], "auth.emailPassword.confirmationURL")
                confirmation.resetURL = try reader.url(settings["resetURL"], "auth.emailPassword.resetURL")
                if let v = try reader.positiveInt(settings["tokenLifetimeSeconds"], "auth.emailPassword.tokenLifetimeSeconds") {
                    confirmation.tokenLifetime = v
                }
                config.emailPasswordAuth = true
                config.emailConfirmation = confirmation
            } else if let v = try reader.bool(auth["emailPassword"], "auth.emailPassword") {
                config.emailPasswordAuth = v
            }
            if let v = try reader.bool(auth["apiKeys"], "auth.apiKeys") { config.apiKeyAuth = v }
        }
        if let tokens = try reader.object(root["tokens"], "tokens") {
            try reader.only(tokens, ["accessTokenLifetimeSeconds", "refreshTokenLifetimeSeconds"], at: "tokens.")
            if let v = try reader.positiveInt(tokens["accessTokenLifetimeSeconds"], "tokens.accessTokenLifetimeSeconds") { config.accessTokenLifetime = v }
            if let v = try reader.positiveInt(tokens["refreshTokenLifetimeSeconds"], "tokens.refreshTokenLifetimeSeconds") { config.refreshTokenLifetime = v }
        }
        if let fields = try reader.object(root["queryableFields"], "queryableFields") {
            var map: [String: Set<String>] = [:]
            for (cls, value) in fields {
                guard let list = value as? [String] else {
                    throw ServerError("\(source): 'queryableFields.\(cls)' must be an array of field names")
                }
                map[cls] = Set(list)
            }
            config.rules.queryableFields = map
        }
        config.rules.indexedQueryableField = try reader.string(root["indexedQueryableField"], "indexedQueryableField")
        if let limits = try reader.object(root["limits"], "limits") {
            try reader.only(limits, ["maxQueryBytes", "clientRetentionSeconds", "historyTrimIntervalVersions"], at: "limits.")
            if let v = try reader.positiveInt(limits["maxQueryBytes"], "limits.maxQueryBytes") { config.rules.maxQueryBytes = Int(v) }
            if let v = try reader.positiveInt(limits["clientRetentionSeconds"], "limits.clientRetentionSeconds") { config.clientRetentionSeconds = v }
            if let v = try reader.positiveInt(limits["historyTrimIntervalVersions"], "limits.historyTrimIntervalVersions") {
                config.historyTrimIntervalVersions = v
            }
        }
        if let rules = try reader.object(root["rules"], "rules") {
            for (cls, value) in rules {
                guard let object = try reader.object(value, "rules.\(cls)") else { continue }
                try reader.only(object, ["read", "write"], at: "rules.\(cls).")
                config.permissions[cls] = ClassPermissions(read: try reader.string(object["read"], "rules.\(cls).read"),
                                                           write: try reader.string(object["write"], "rules.\(cls).write"))
            }
        }
        if let limits = try reader.object(root["rateLimits"], "rateLimits") {
            try reader.only(limits, ["loginPerAddress", "loginPerEmail", "clientFilesPerUser"], at: "rateLimits.")
            if let v = try reader.rateLimit(limits["clientFilesPerUser"], "rateLimits.clientFilesPerUser") { config.clientFileRateLimit = v }
            if let v = try reader.rateLimit(limits["loginPerAddress"], "rateLimits.loginPerAddress") { config.loginRateLimitPerAddress = v }
            if let v = try reader.rateLimit(limits["loginPerEmail"], "rateLimits.loginPerEmail") { config.loginRateLimitPerEmail = v }
        }
        if let field = try reader.string(root["partitionField"], "partitionField") {
            guard !field.isEmpty, !field.contains("."), !field.hasPrefix("__") else {
                throw ServerError("\(source): 'partitionField' \"\(field)\" must be a property name")
            }
            config.partitionField = field
        }
        do {
            _ = try AppRules(config)
        } catch let error as ServerError {
            throw ServerError("\(source): \(error.message)")
        }
        return config
    }

    /// Checks what ``parse(_:source:)`` checks of a configuration built in code: the
    /// read and write rules.
    ///
    /// - Throws: ``ServerError`` naming the bad rule's key.
    public func validate() throws {
        _ = try AppRules(self)
    }
}

/// Typed reads of JSON values with errors naming the key.
struct ConfigReader {
    let source: String

    func only(_ object: [String: Any], _ keys: Set<String>, at prefix: String) throws {
        for key in object.keys.sorted() where !keys.contains(key) {
            throw ServerError("\(source): unknown key '\(prefix)\(key)' (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ value: Any?, _ key: String) throws -> String? {
        guard let value else { return nil }
        guard let s = value as? String else { throw ServerError("\(source): '\(key)' must be a string") }
        return s
    }

    func url(_ value: Any?, _ key: String) throws -> String? {
        guard let text = try string(value, key) else { return nil }
        guard let url = URLComponents(string: text), url.scheme == "https" || url.scheme == "http", url.host?.isEmpty == false else {
            throw ServerError("\(source): '\(key)' must be an http or https URL, not \"\(text)\"")
        }
        return text
    }

    /// A secret given by exactly one of `key` (inline), `keyFile` (a file's text, one
    /// trailing newline dropped) or `keyEnv` (an environment variable), at least 32 bytes.
    func secret(_ object: [String: Any], _ at: String, baseDirectory: URL?, environment: [String: String]) throws -> String {
        let inline = try string(object["key"], at + ".key")
        let file = try string(object["keyFile"], at + ".keyFile")
        let variable = try string(object["keyEnv"], at + ".keyEnv")
        let given = [inline, file, variable].compactMap { $0 }.count
        guard given == 1 else {
            throw ServerError("\(source): '\(at)' needs exactly one of 'key', 'keyFile' or 'keyEnv'\(given == 0 ? "" : ", not \(given)")")
        }
        let key: String
        let name: String
        if let inline {
            key = inline
            name = "'\(at).key'"
        } else if let file {
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file)
                : (baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent(file)
            let bytes: Data
            do {
                bytes = try SmallFile.read(url, what: "the key file")
            } catch let error as ServerError {
                throw ServerError("\(source): '\(at).keyFile': \(error.message)")
            }
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
            key = text
            name = "the key file '\(url.path)'"
        } else {
            let variable = variable!
            guard let value = environment[variable] else {
                throw ServerError("\(source): '\(at).keyEnv': the environment variable '\(variable)' is not set")
            }
            key = value
            name = "the environment variable '\(variable)'"
        }
        guard key.utf8.count >= 32 else {
            throw ServerError("\(source): \(name) must hold at least 32 bytes, not \(key.utf8.count)")
        }
        return key
    }

    func bool(_ value: Any?, _ key: String) throws -> Bool? {
        guard let value else { return nil }
        guard let n = value as? NSNumber, CFGetTypeIDIsBool(n) else { throw ServerError("\(source): '\(key)' must be true or false") }
        return n.boolValue
    }

    func positiveInt(_ value: Any?, _ key: String) throws -> Int64? {
        guard let value else { return nil }
        guard let n = value as? NSNumber, !CFGetTypeIDIsBool(n), n.doubleValue == n.doubleValue.rounded(), n.int64Value > 0 else {
            throw ServerError("\(source): '\(key)' must be a positive integer")
        }
        return n.int64Value
    }

    func rateLimit(_ value: Any?, _ key: String) throws -> RateLimit? {
        guard let object = try object(value, key) else { return nil }
        try only(object, ["burst", "perMinute"], at: key + ".")
        guard let burst = try positiveInt(object["burst"], key + ".burst"),
              let perMinute = try positiveInt(object["perMinute"], key + ".perMinute") else {
            throw ServerError("\(source): '\(key)' needs both 'burst' and 'perMinute'")
        }
        return RateLimit(burst: Int(burst), perMinute: Int(perMinute))
    }

    func object(_ value: Any?, _ key: String) throws -> [String: Any]? {
        guard let value else { return nil }
        guard let o = value as? [String: Any] else { throw ServerError("\(source): '\(key)' must be an object") }
        return o
    }
}

/// Whether a JSON number came from `true` / `false`.
private func CFGetTypeIDIsBool(_ n: NSNumber) -> Bool {
    // Foundation on Linux boxes JSON booleans as NSNumber of objCType "c" (char).
    String(cString: n.objCType) == "c" && (n == NSNumber(value: true) || n == NSNumber(value: false))
}

/// How the email/password provider proves that a user reads the address they registered
/// (`"auth": {"emailPassword": {...}}`).
///
/// `%user.email` in rules is a user's address only once it was confirmed: by the token
/// pair of a confirmation mail (`confirm`) or of a password reset mail (`reset`).
public struct EmailConfirmation: Sendable, Hashable {
    /// Whether a registered user may log in before confirming (the default). With
    /// `false`, registration mails a confirmation and login answers `AuthError`
    /// ("confirmation required") until the user confirms; the server then needs a
    /// ``MailSender``.
    public var autoConfirm = true
    /// The link mailed for confirmation; `token` and `tokenId` are added as query items.
    /// Without one, the mail carries the two values.
    public var confirmationURL: String?
    /// The link mailed for a password reset, likewise.
    public var resetURL: String?
    /// Seconds a mailed token pair stays valid.
    public var tokenLifetime: Int64 = 24 * 3600

    public init() {}
}
