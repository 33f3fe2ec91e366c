import OpenRealm

/// The app's read and write rules checked once at start: per class, the rule templates.
struct AppRules: Sendable {
    var read: [String: RuleTemplate] = [:]
    var write: [String: RuleTemplate] = [:]

    /// The rules of `configuration`.
    ///
    /// - Throws: ``ServerError`` naming the bad rule's key (`rules.Task.write`).
    init(_ configuration: AppConfiguration) throws {
        for (cls, rules) in configuration.permissions {
            if let text = rules.read { read[cls] = try RuleTemplate(text, key: "rules.\(cls).read") }
            if let text = rules.write { write[cls] = try RuleTemplate(text, key: "rules.\(cls).write") }
        }
    }

    init() {}

    /// The rules bound to a user.
    func bound(userId: String, email: String?) -> SessionPermissions {
        SessionPermissions(read: read.mapValues { $0.predicate(userId: userId, email: email) },
                           write: write.mapValues { $0.predicate(userId: userId, email: email) })
    }
}

/// One session's rules, with the user's id and email bound: per class, the predicate an
/// object must match to be read (enter the view) or written. A class without a rule is
/// unrestricted.
struct SessionPermissions: Sendable {
    var read: [String: QueryPredicate] = [:]
    var write: [String: QueryPredicate] = [:]
}
