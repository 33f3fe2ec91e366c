import Foundation
import XCTest
@testable import OpenRealmPostgres
import OpenRealmPostgresTestSupport
@testable import OpenRealmServer

/// The commit feed across processes: a commit in one process wakes the subscribers of
/// its app in another, through `NOTIFY`, after the listener's connection was dropped,
/// and through the poll when no notification comes at all.
final class CommitFeedTests: PostgresTestCase {
    func testACommitInAnotherProcessWakesItsAppsSubscribers() throws {
        let location = try makeDatabase()
        let writer = PostgresApp(database: try pool(location), appId: "a")
        let other = PostgresApp(database: try pool(location), appId: "b")
        try commit(writer, announce: true)
        try commit(other, announce: true)
        // Polling rarely: only a notification can wake in time.
        let feed = PostgresCommitFeed(database: try pool(location), pollInterval: .seconds(3600))
        let wakesA = Counter(), wakesB = Counter()
        _ = feed.subscribe(appId: "a") { wakesA.add() }
        _ = feed.subscribe(appId: "b") { wakesB.add() }
        feed.start()
        defer { feed.stop() }
        try waitFor("the feed listens and reads the versions it missed") { feed.isListening && wakesA.value == 1 && wakesB.value == 1 }

        try commit(writer, announce: true)
        try waitFor("a's subscriber woken") { wakesA.value == 2 }
        XCTAssertEqual(wakesB.value, 1, "another app's subscribers are not woken")
        XCTAssertEqual(try feed.committedVersion(appId: "a"), 2)

        // A rolled-back unit announces nothing.
        XCTAssertThrowsError(try writer.withWriteLock("fail") { unit, version in
            try writer.setServerVersion(version + 1, in: unit)
            try PostgresCommitFeed.announce(appId: "a", version: version + 1, in: unit)
            throw CancellationError()
        })
        try commit(other, announce: true)
        try waitFor("b's later commit arrives") { wakesB.value == 2 }
        XCTAssertEqual(wakesA.value, 2, "the rolled-back version woke no one")
    }

    /// The listener's connection is dropped (the database restarted it, a network
    /// fault): the feed connects again, listens again and wakes for what committed
    /// while it was away.
    func testTheFeedListensAgainAfterItsConnectionIsDropped() throws {
        let cluster = try PostgresCluster.shared()
        let location = try makeDatabase()
        let writer = PostgresApp(database: try pool(location), appId: "a")
        let feed = PostgresCommitFeed(database: try pool(location), pollInterval: .seconds(3600), reconnectDelay: .milliseconds(100))
        let wakes = Counter()
        _ = feed.subscribe(appId: "a") { wakes.add() }
        feed.start()
        defer { feed.stop() }
        try waitFor("listening") { feed.isListening }
        try commit(writer, announce: true)
        try waitFor("woken once") { wakes.value == 1 }

        let killed = try cluster.psql(location.database, """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name LIKE '%(commit feed)'
            """)
        XCTAssertEqual(killed, "1", "the listener's backend was found and ended")
        try commit(writer, announce: false)
        try waitFor("the version committed while the listener was gone wakes once it is back") { wakes.value == 2 }
        try waitFor("listening again") { feed.isListening }
        try commit(writer, announce: true)
        try waitFor("notifications wake again") { wakes.value == 3 }
    }

    /// No notification at all (a commit by a process that could not announce it): the
    /// poll finds it.
    func testThePollFindsAnUnannouncedCommit() throws {
        let location = try makeDatabase()
        let writer = PostgresApp(database: try pool(location), appId: "a")
        let feed = PostgresCommitFeed(database: try pool(location), pollInterval: .milliseconds(100))
        let wakes = Counter()
        _ = feed.subscribe(appId: "a") { wakes.add() }
        feed.start()
        defer { feed.stop() }
        try commit(writer, announce: false)
        try waitFor("the poll wakes") { wakes.value >= 1 }
        let seen = wakes.value
        try commit(writer, announce: false)
        try waitFor("and again for the next version") { wakes.value == seen + 1 }
    }

    /// The engine's view of the feed (``CommitFeed``): one app's versions, a wake for
    /// another process's commit, none after the subscription is cancelled.
    func testTheEnginesFeedOfOneApp() throws {
        let location = try makeDatabase()
        let writer = PostgresApp(database: try pool(location), appId: "a")
        let shared = PostgresCommitFeed(database: try pool(location), pollInterval: .milliseconds(100))
        shared.start()
        defer { shared.stop() }
        let feed: any CommitFeed = PostgresAppCommitFeed(feed: shared, appId: "a")
        XCTAssertEqual(try feed.committedVersion(), 0)
        let wakes = Counter(), witness = Counter()
        let subscription = feed.subscribe { wakes.add() }
        _ = feed.subscribe { witness.add() }
        try commit(writer, announce: true)
        try waitFor("woken") { wakes.value == 1 && witness.value == 1 }
        XCTAssertEqual(try feed.committedVersion(), 1)
        subscription.cancel()
        try commit(writer, announce: true)
        // The witness, still subscribed, is woken for version 2 in the same pass that
        // would have woken the cancelled one.
        try waitFor("the witness is woken") { witness.value == 2 }
        XCTAssertEqual(wakes.value, 1, "no wake after cancel")
    }

    private func commit(_ app: PostgresApp, announce: Bool) throws {
        try app.withWriteLock("commit") { unit, version in
            try app.setServerVersion(version + 1, in: unit)
            if announce { try PostgresCommitFeed.announce(appId: app.appId, version: version + 1, in: unit) }
        }
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("not within \(timeout) s: \(what)") }
            usleep(10_000)
        }
    }
}
