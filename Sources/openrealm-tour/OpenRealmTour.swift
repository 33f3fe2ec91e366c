import Foundation
import RealmSwift

/// `swift run openrealm-tour`: a walk through OpenRealm's sync, against a real
/// `openrealm-server` started in this process.
///
/// The steps follow the Realm Swift SDK pages "Configure & Open a Synced Realm" and
/// "Manage Flexible Sync Subscriptions" with two users, Alice and Bob, and a third,
/// Carol, who gets a copy of Alice's realm. Each step checks that what it shows really
/// happened; the tour exits 0 when every step did, 1 (naming the step) otherwise.
@main
struct OpenRealmTour {
    /// Runs the tour on the main actor while the main thread runs its run loop.
    ///
    /// Not an `async` main: on Linux that hands the main queue to `dispatch_main()`,
    /// which drains it on worker threads, so main-actor code would move between threads
    /// — and a realm belongs to the thread that opened it. The main run loop drains the
    /// main queue on the main thread itself. ``tour()`` ends the process.
    static func main() {
        Watchdog.start(limit: 120)
        _Concurrency.Task { @MainActor in await tour() }
        while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
    }

    @MainActor
    static func tour() async -> Never {
        show("OpenRealm tour: sync between two users through a local openrealm-server\n")
        let server: TourServer
        do {
            server = try TourServer()
        } catch {
            show("✗ FAILED: could not start the openrealm-server: \(error)")
            exit(1)
        }
        show("An openrealm-server runs in development mode at \(server.baseURL)")
        show("(data in \(server.dataDirectory.path), removed at the end).")

        let clientRoot = FileManager.default.temporaryDirectory
            .appendingPathComponent("openrealm-tour-client-\(UUID().uuidString.prefix(8))")
        let tour = Tour(baseURL: server.baseURL, clientRoot: clientRoot)
        var failure: Error?
        do {
            try await tour.run()
        } catch {
            failure = error
        }
        await tour.finish()
        server.stop()
        try? FileManager.default.removeItem(at: clientRoot)

        if let failure {
            show("\n✗ The tour stopped: \(failure)")
            exit(1)
        }
        show("\n✓ Tour complete: all \(tour.narrator.passed.count) steps did what they should.")
        exit(0)
    }
}
