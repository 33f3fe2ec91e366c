import OpenRealmWire

/// The refusal of a configured schema that conflicts with the stored one, worded alike
/// by every store (`serve` and `schema apply` print it):
///
/// ```text
/// the schema conflicts with the store of app 'todo': property 'Task.title' exists with another type (stored: string, schema: int)
/// ```
extension AppSchema {
    /// The error for `refusal`, the store's refusal of `instruction` of the configured
    /// schema, given what was `stored` before it was applied.
    package static func conflict(appId: String, _ refusal: any Error, _ instruction: WireInstruction, stored: AppSchema) -> ServerError {
        let reason = (refusal as? SyncFailure)?.message ?? "\(refusal)"
        let classes = Dictionary(stored.classes.map { ($0.schema.name, $0) }) { first, _ in first }
        return ServerError("the schema conflicts with the store of app '\(appId)': \(reason)" + conflictDetail(instruction, stored: classes))
    }

    /// " (stored: …, schema: …)" for a conflicting instruction, so the operator sees
    /// both definitions.
    private static func conflictDetail(_ instruction: WireInstruction, stored: [String: Class]) -> String {
        switch instruction {
        case .addClass(let cls):
            guard let have = stored[cls.name] else { return "" }
            return " (stored: \(describe(have.schema)), schema: \(describe(cls)))"
        case .addProperty(let className, let property):
            guard let have = stored[className]?.properties.first(where: { $0.name == property.name }) else { return "" }
            return " (stored: \(describe(have)), schema: \(describe(property)))"
        default:
            return ""
        }
    }

    private static func describe(_ cls: WireClassSchema) -> String {
        let key = cls.primaryKey.map { "primary key \($0.name) \($0.type)\($0.isOptional ? "?" : "")" } ?? "no primary key"
        return "\(cls.kind), \(key)"
    }

    private static func describe(_ p: WirePropertySchema) -> String {
        var text = p.type == .link ? "link to \(p.linkTarget ?? "?")" : "\(p.type)"
        if p.isOptional { text += "?" }
        switch p.collection {
        case .none: break
        case .list: text = "list of \(text)"
        case .set: text = "set of \(text)"
        case .dictionary: text = "dictionary of \(text)"
        }
        return text
    }
}
