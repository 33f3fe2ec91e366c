import XCTest
import RealmSwift

/// The seed page's "Flexible Sync RQL requirements and limitations" (000), checked
/// through the client: allowed subscription queries complete, refused ones make
/// `update` throw with the server's message naming the rule, and the set recovers.
final class QueryRulesPageTests: SyncTestCase {
    /// Updates with one query on `T`; returns the error `update` threw, or nil.
    @MainActor
    func subscribe<T: Object>(_ realm: Realm, _ type: T.Type, _ query: String) async -> Realm.Error? {
        let subscriptions = realm.subscriptions
        do {
            try await subscriptions.update {
                subscriptions.removeAll()
                subscriptions.append(QuerySubscription<T>(name: "rule", where: query))
            }
            return nil
        } catch let error as Realm.Error {
            return error
        } catch {
            XCTFail("update threw something else than a Realm.Error: \(error)")
            return nil
        }
    }

    @MainActor
    func testListQueriesOfThePage() async throws {
        try await writeAsAnotherUser { realm in
            realm.add(Team(value: ["teamName": "Comedy", "members": ["comedy", "drama"]]))
            realm.add(Task(value: ["taskName": "P2", "progressMinutes": 2]))
        }
        let realm = try await Realm(configuration: flexConfig(try await newUser()))
        // Query a constant list for a queryable field value
        let constantList = await subscribe(realm, Task.self, "progressMinutes IN { 1, 2, 3 }")
        XCTAssertNil(constantList)
        realm.refresh()
        XCTAssertEqual(realm.objects(Task.self).map(\.taskName), ["P2"])
        // Query an array-valued queryable field for a constant value
        let arrayValued = await subscribe(realm, Team.self, "'comedy' IN members")
        XCTAssertNil(arrayValued)
        realm.refresh()
        XCTAssertEqual(realm.objects(Team.self).map(\.teamName), ["Comedy"])
    }

    @MainActor
    func testRefusedQueriesOfThePage() async throws {
        let realm = try await Realm(configuration: flexConfig(try await newUser()))
        let refused: [(query: String, rule: String)] = [
            // Invalid Flexible Sync query. Do not do this!
            ("{'comedy', 'horror', 'suspense'} IN members", "list"),
            // Another invalid Flexible Sync query. Do not do this!
            ("ANY {'comedy', 'horror', 'suspense'} != ANY members", "list"),
            // Paths through links.
            ("tasks.taskName == 'x'", "link"),
            // An aggregate over linked objects: refused, first for going through a link.
            ("tasks.@avg.progressMinutes > 3", "link"),
            // Query suffixes.
            ("teamName != '' LIMIT(5)", "LIMIT"),
            ("teamName != '' DISTINCT(teamName)", "DISTINCT"),
        ]
        for (query, rule) in refused {
            let error = await subscribe(realm, Team.self, query)
            XCTAssertNotNil(error, "\(query) must be refused")
            guard let error else { continue }
            XCTAssertTrue([.subscriptionFailed, .invalidQuery].contains(error.code), "\(query): \(error)")
            XCTAssertTrue(error.message.range(of: rule, options: .caseInsensitive) != nil, "\(query): the message should name the \(rule) rule: \(error.message)")
        }
        // @count on a list is allowed.
        let count = await subscribe(realm, Team.self, "members.@count > 1")
        XCTAssertNil(count)
        XCTAssertEqual(realm.subscriptions.state, .complete)
    }

    @MainActor
    func testQueriesOver256kBExceedTheLimit() async throws {
        let realm = try await Realm(configuration: flexConfig(try await newUser()))
        let huge = "taskName == '" + String(repeating: "x", count: 270_000) + "'"
        let error = await subscribe(realm, Task.self, huge)
        let failure = try XCTUnwrap(error, "a query over 256 kB must be refused")
        XCTAssertEqual(failure.code, .subscriptionFailed)
        XCTAssertTrue(failure.message.localizedCaseInsensitiveContains("limit"), failure.message)
        // Later sets still work.
        let small = await subscribe(realm, Task.self, "taskName == 'small'")
        XCTAssertNil(small)
    }
}
