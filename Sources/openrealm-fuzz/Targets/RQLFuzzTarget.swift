import Foundation
import OpenRealmQuery

extension FuzzTarget {
    /// RQL text through the parser, the canonical renderer and the compiler.
    ///
    /// Checks, beyond "no crash": a query that parses prints a canonical form
    /// (`ParsedQuery.description`, the identity of unnamed sync subscriptions) that
    /// parses again and prints the same string; the key-path parser never crashes; a
    /// parsed query, bound to fixed arguments, compiles against ``rqlSchema`` for every
    /// class or throws a `QueryError`.
    static let rql = FuzzTarget(
        name: "rql",
        summary: "RQL text: parse, canonical form reads back to itself, bind and compile against a fixed schema",
        run: { bytes in
            let text = String(fuzzBytes: bytes)
            _ = try? QueryParser.parseKeyPath(text)
            let parsed: ParsedQuery
            do {
                parsed = try QueryParser.parse(text)
            } catch {
                return
            }
            let canonical = parsed.description
            let again: ParsedQuery
            do {
                again = try QueryParser.parse(canonical)
            } catch {
                fuzzFailure("the canonical form \(canonical.debugDescription) of \(text.debugDescription) does not parse: \(error)")
            }
            guard again.description == canonical else {
                fuzzFailure("the canonical form \(canonical.debugDescription) of \(text.debugDescription) reads back as \(again.description.debugDescription)")
            }
            guard let bound = try? parsed.binding(rqlArguments) else { return }
            for className in ["Person", "Address", "Note"] {
                _ = try? QueryCompiler.compile(bound, className: className, schema: rqlSchema)
            }
        },
        seeds: {
            rqlSeeds.enumerated().map { (name: "seed-\($0.offset)", bytes: Array($0.element.utf8)) }
        }
    )

    /// The arguments every query is bound to: `$0` is a property name, so `%K` works.
    nonisolated(unsafe) static let rqlArguments: [Any] = [
        "name", 5, 2.5, true, "Ada", Date(timeIntervalSince1970: 1_000_000_000), [1, 2, 3], Float(1.5), Data([1, 2]),
    ]

    /// The classes queries compile against: every property type, collections, links,
    /// an embedded class and a backlink.
    static let rqlSchema = QuerySchemaList([
        QuerySchemaClass(name: "Person", table: 1, properties: [
            QuerySchemaProperty(name: "id", column: 0, type: .int),
            QuerySchemaProperty(name: "name", column: 1, type: .string),
            QuerySchemaProperty(name: "age", column: 2, type: .int, isOptional: true),
            QuerySchemaProperty(name: "score", column: 3, type: .double),
            QuerySchemaProperty(name: "born", column: 4, type: .timestamp),
            QuerySchemaProperty(name: "tags", column: 5, type: .string, collection: .list),
            QuerySchemaProperty(name: "nums", column: 6, type: .int, collection: .set),
            QuerySchemaProperty(name: "attrs", column: 7, type: .mixed, collection: .dictionary, isOptional: true),
            QuerySchemaProperty(name: "best", column: 8, type: .link, isOptional: true, linkTargetClass: "Person"),
            QuerySchemaProperty(name: "friends", column: 9, type: .link, collection: .list, linkTargetClass: "Person"),
            QuerySchemaProperty(name: "home", column: 10, type: .link, isOptional: true, linkTargetClass: "Address"),
            QuerySchemaProperty(name: "active", column: 11, type: .bool),
            QuerySchemaProperty(name: "weight", column: 12, type: .float),
            QuerySchemaProperty(name: "any", column: 13, type: .mixed, isOptional: true),
            .linkingObjects(name: "fans", originClass: "Person", originProperty: "best"),
        ]),
        QuerySchemaClass(name: "Address", table: 2, isEmbedded: true, properties: [
            QuerySchemaProperty(name: "city", column: 0, type: .string),
            QuerySchemaProperty(name: "zip", column: 1, type: .int, isOptional: true),
        ]),
        QuerySchemaClass(name: "Note", table: 3, properties: [
            QuerySchemaProperty(name: "text", column: 0, type: .string),
            QuerySchemaProperty(name: "data", column: 1, type: .binary, isOptional: true),
            QuerySchemaProperty(name: "oid", column: 2, type: .objectId),
            QuerySchemaProperty(name: "uuid", column: 3, type: .uuid),
            QuerySchemaProperty(name: "dec", column: 4, type: .decimal),
            QuerySchemaProperty(name: "author", column: 5, type: .link, isOptional: true, linkTargetClass: "Person"),
        ]),
    ])

    /// Queries covering the grammar (QueryParser.swift).
    static let rqlSeeds: [String] = [
        "name == 'Ada' AND age > 30",
        "name BEGINSWITH[c] 'a' OR name ENDSWITH[cd] \"ß\" OR name CONTAINS 'x' OR name LIKE 'A?a*'",
        "NOT (age >= 18 && age <= 65) || score < -1.5e3",
        "age BETWEEN {18, 65} AND score IN {1.5, 2, nan, -infinity}",
        "ANY tags == 'swift' AND ALL nums > 0 AND NONE friends.name == 'Bob'",
        "friends.@count > 2 AND tags.@size == 0 AND nums.@sum > 10 AND nums.@avg < 3.5 AND nums.@min == 1 AND nums.@max != 9",
        "attrs['level'] == 3 AND attrs.@keys == 'mark' AND attrs.@values > 1 AND attrs.level == 3",
        "SUBQUERY(friends, $f, $f.age > 30 AND SUBQUERY($f.friends, $g, $g.name == 'x').@count > 0).@count >= 1",
        "@links.Person.best.@count > 0 AND fans.@count == 0 AND home.city == 'Oslo'",
        "born > 2024-01-02@03:04:05 AND born < T1700000000:500 AND born != 2024-01-02@03:04:05:123456789",
        "oid == oid(651f2a001122334455667788) AND uuid == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)",
        "dec > decimal128(1.5E-3) AND data == B64\"AAEC\" AND author == nil AND author != null",
        "%K == $1 AND age > %@ AND score > $2 AND active == $3 AND born < $5 AND age IN $6",
        "TRUEPREDICATE SORT(name ASC, age DESC) DISTINCT(name) LIMIT(10)",
        "FALSEPREDICATE",
        "any == 'x' OR any == 5 OR any.@type == 'string' OR weight > 1.5f",
        "best.best.best.name ==[c] 'ada' AND best == L1:5",
        "((((age == 1))))",
    ]
}
