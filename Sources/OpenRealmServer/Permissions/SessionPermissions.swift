import OpenRealmQuery

/// The app's read and write rules checked once at start: per class, the rule templates,
/// and the `"*"` entry's for every class (and every rule) without its own.
struct AppRules: Sendable {
    var read: [String: RuleTemplate?] = [:]
    var write: [String: RuleTemplate?] = [:]
    /// Whether a class or rule without its own (and without a `"*"` one) is denied: a
    /// configured app's rules; development mode's are open.
    var denyUnruled = false
    /// The `"*"` entry's rules.
    var otherRead: RuleTemplate?
    var otherWrite: RuleTemplate?

    /// The name of the entry whose rules stand for every class without its own.
    static let everyOtherClass = "*"

    /// The rules of `configuration`.
    ///
    /// - Throws: ``ServerError`` naming the bad rule's key (`rules.Task.write`).
    init(_ configuration: ServerAppConfiguration) throws {
        denyUnruled = true
        for (cls, rules) in configuration.permissions {
            let readRule = try rules.read.map { try RuleTemplate($0, key: "rules.\(cls).read") }
            let writeRule = try rules.write.map { try RuleTemplate($0, key: "rules.\(cls).write") }
            if cls == Self.everyOtherClass {
                otherRead = readRule
                otherWrite = writeRule
            } else {
                read[cls] = .some(readRule)
                write[cls] = .some(writeRule)
            }
        }
    }

    /// Open rules: every class readable and writable by every user (development mode).
    init() {}

    /// The rules bound to a user. A rule that binds to `TRUEPREDICATE` is left out (the
    /// class is unrestricted: no query runs for it).
    func bound(userId: String, email: String?) -> SessionPermissions {
        func bind(_ template: RuleTemplate?) -> QueryPredicate? {
            guard let template else { return denyUnruled ? .falsePredicate : nil }
            let predicate = template.predicate(userId: userId, email: email)
            if case .truePredicate = predicate { return nil }
            return predicate
        }
        var permissions = SessionPermissions(otherRead: bind(otherRead), otherWrite: bind(otherWrite))
        for cls in Set(read.keys).union(write.keys) {
            // A rule the entry lacks is the "*" entry's.
            let ownRead = read[cls].flatMap { $0 }, ownWrite = write[cls].flatMap { $0 }
            permissions.read[cls] = .some(ownRead.map { bind($0) } ?? permissions.otherRead)
            permissions.write[cls] = .some(ownWrite.map { bind($0) } ?? permissions.otherWrite)
        }
        return permissions
    }
}

/// One session's rules, with the user's id and email bound: per class, the predicate an
/// object must match to be read (enter the view) or written, nil where the class is
/// unrestricted; `otherRead` and `otherWrite` for the classes without an entry.
struct SessionPermissions: Sendable {
    var read: [String: QueryPredicate?] = [:]
    var write: [String: QueryPredicate?] = [:]
    var otherRead: QueryPredicate?
    var otherWrite: QueryPredicate?

    /// The read rule of `className`, or nil when it may be read freely.
    func readRule(_ className: String) -> QueryPredicate? {
        if let entry = read[className] { return entry }
        return otherRead
    }

    /// The write rule of `className`, or nil when it may be written freely.
    func writeRule(_ className: String) -> QueryPredicate? {
        if let entry = write[className] { return entry }
        return otherWrite
    }

    /// The read rules as a view record keeps them: per class with an entry
    /// (`TRUEPREDICATE` where unrestricted), and `"*"` for the others when restricted.
    var readRulesByClass: [String: QueryPredicate] {
        var rules = read.mapValues { $0 ?? .truePredicate }
        if let otherRead { rules[AppRules.everyOtherClass] = otherRead }
        return rules
    }
}
