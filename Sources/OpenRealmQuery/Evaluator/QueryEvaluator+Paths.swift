/// Walking a key path over object images, as ORCore walks rows (`walk`, `qpath_each` in
/// query_eval.c): depth first, the visitor able to stop the walk (ANY stops at the
/// first match, ALL at the first miss).
///
/// - A single property yields its value; a link is followed (a nil one yields null when
///   the path is single-valued, nothing when it is many-valued).
/// - A list or set yields its elements; a dictionary its values (its keys for
///   `@keys`); through links each linked object is walked on (null links skipped).
/// - A dictionary key yields the value at that key (compared as UTF-8 bytes), or, when
///   the key is missing, what a nil link yields.
/// - A LinkingObjects step walks each linking object.
/// - A path of no steps (a SUBQUERY's `$x`) yields the object itself.
///
/// `@sum` and `@avg` of floating-point numbers depend on the order of the values, so
/// for them sets are fed in ORCore's stored order (values by ``QueryValueComparison``,
/// objects by key when every one has one) and dictionaries by key bytes.
extension QueryEvaluator {
    typealias Visit = (Item) throws -> Bool

    /// `qpath_each`: calls `visit` with each value `p` yields from `object` (after the
    /// aggregate). Returns true when `visit` stopped the walk.
    func each(_ p: Path, _ object: any QueryEvaluable, _ table: UInt32, _ visit: Visit) throws -> Bool {
        guard let kind = p.reduction else { return try walk(p, 0, object, table, visit) }
        var accumulator = QueryAccumulator(kind, zeroType: p.zeroType)
        _ = try walk(p, 0, object, table) { accumulator.add($0); return false }
        return try visit(.value(accumulator.result))
    }

    /// Nothing where a value was expected: a single-valued path still yields (null).
    private func absent(_ p: Path, _ visit: Visit) throws -> Bool {
        p.multi ? false : try visit(.value(.null))
    }

    /// Continues at the object step `i` reached.
    private func follow(_ p: Path, _ i: Int, _ object: (any QueryEvaluable)?, _ visit: Visit) throws -> Bool {
        guard let object, let next = p.steps[i].next else { return try absent(p, visit) }
        return try walk(p, i + 1, object, next.table, visit)
    }

    /// An object reached by step `i`: yielded (last step) or walked on.
    private func reach(_ p: Path, _ i: Int, _ object: (any QueryEvaluable)?, _ visit: Visit) throws -> Bool {
        guard i + 1 == p.steps.count else { return try follow(p, i, object, visit) }
        guard let object, let next = p.steps[i].next else { return try visit(.value(.null)) }
        return try visit(.object(object, table: next.table))
    }

    private func walk(_ p: Path, _ i: Int, _ object: any QueryEvaluable, _ table: UInt32, _ visit: Visit) throws -> Bool {
        if i == p.steps.count { return try visit(.object(object, table: table)) }
        let s = p.steps[i]
        let last = i + 1 == p.steps.count
        if case .backlink = s.kind {
            guard let origins = object.queryLinkingObjects(className: s.next?.name ?? "?", property: s.name) else {
                throw QueryEvaluationError("Cannot follow '@links.\(s.next?.name ?? "?").\(s.name)': the image of a '\(s.owner)' object gives no linking objects")
            }
            for origin in origins {
                if try reach(p, i, origin, visit) { return true }
            }
            return false
        }
        guard let value = object.queryProperty(s.name) else {
            throw QueryEvaluationError("The image of a '\(s.owner)' object has no property '\(s.name)'")
        }
        let sums = p.reduction == .sum || p.reduction == .avg
        switch (s.collection, s.type == .link, value) {
        case (.none, false, .value(let v)):
            return last ? try visit(.value(v)) : try absent(p, visit)
        case (.none, true, .object(let o)):
            return try reach(p, i, o, visit)
        case (.none, true, .value(.null)): // a null link given as a null value
            return try reach(p, i, nil, visit)
        case (.list, false, .values(let values)), (.set, false, .values(let values)):
            guard last else { return false } // values lead nowhere
            let ordered = sums && s.collection == .set ? Self.stored(values) : values
            for v in ordered {
                if try visit(.value(v)) { return true }
            }
            return false
        case (.list, true, .objects(let objects)), (.set, true, .objects(let objects)):
            let ordered = sums && s.collection == .set ? Self.stored(objects) : objects
            for o in ordered {
                if try reach(p, i, o, visit) { return true }
            }
            return false
        case (.dictionary, false, .dictionary(let entries)):
            if case .dictionaryKey(let key) = s.kind {
                guard let v = Self.lookup(key, in: entries) else { return try absent(p, visit) }
                return last ? try visit(.value(v)) : try absent(p, visit)
            }
            guard last else { return false }
            for (k, v) in sums ? Self.stored(entries) : entries {
                if try visit(.value(p.keys ? .string(k) : v)) { return true }
            }
            return false
        case (.dictionary, true, .objectDictionary(let entries)):
            if case .dictionaryKey(let key) = s.kind {
                guard let o = Self.lookup(key, in: entries) else { return try absent(p, visit) }
                return try reach(p, i, o, visit)
            }
            for (k, o) in sums ? Self.stored(entries) : entries {
                if last && p.keys {
                    if try visit(.value(.string(k))) { return true }
                } else if last || o != nil {
                    if try reach(p, i, o, visit) { return true }
                }
            }
            return false
        default:
            throw QueryEvaluationError("The image of a '\(s.owner)' object gives '\(s.name)' as \(Self.shape(value)), but the schema says \(Self.shape(s))")
        }
    }

    // MARK: - Helpers

    private static func lookup<V>(_ key: String, in entries: [(key: String, value: V)]) -> V? {
        for e in entries where e.key.utf8.elementsEqual(key.utf8) { return e.value }
        return nil
    }

    /// A set's values in ORCore's stored order.
    private static func stored(_ values: [QueryValue]) -> [QueryValue] {
        values.sorted { QueryValueComparison.compare($0, $1) < 0 }
    }

    /// A set of objects in key order, when every object has a key.
    private static func stored(_ objects: [any QueryEvaluable]) -> [any QueryEvaluable] {
        let keys = objects.compactMap { $0.queryObjectKey }
        guard keys.count == objects.count else { return objects }
        return zip(keys, objects).sorted { $0.0 < $1.0 }.map { $0.1 }
    }

    /// A dictionary's entries in ORCore's stored order (key bytes).
    private static func stored<V>(_ entries: [(key: String, value: V)]) -> [(key: String, value: V)] {
        entries.sorted { QueryText.compareBytes($0.key.utf8, $1.key.utf8) < 0 }
    }

    private static func shape(_ v: QueryPropertyValue) -> String {
        switch v {
        case .value: return "a single value"
        case .object: return "a link"
        case .values: return "a collection of values"
        case .objects: return "a collection of links"
        case .dictionary: return "a dictionary of values"
        case .objectDictionary: return "a dictionary of links"
        }
    }

    private static func shape(_ s: Step) -> String {
        let element = s.type == .link ? "links" : "values"
        switch s.collection {
        case .none: return s.type == .link ? "a link" : "a single value"
        case .list: return "a list of \(element)"
        case .set: return "a set of \(element)"
        case .dictionary: return "a dictionary of \(element)"
        }
    }
}
