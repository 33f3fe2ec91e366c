import Foundation
import OpenRealmWire
import Synchronization

/// One well-behaved client of an `abuse` run, on a thread of its own: it binds,
/// subscribes to its own notes, then makes round trips until stopped, one every
/// `interval` — an upload of a note answered by its acknowledgement, or a mark answered
/// by its echo, in turn — and records how long each took. A round trip that gets an
/// error, loses its connection or takes more than ``roundTripTimeout`` is a failure; the
/// client then stops.
final class OrdinaryClient: Sendable {
    /// The longest a round trip may take before it counts as failed.
    static let roundTripTimeout: TimeInterval = 10

    let index: Int
    private let port: Int
    private let appId: String
    private let token: String
    private let interval: TimeInterval
    private let stats: OrdinaryStats
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
        var subscribed = false
        var lastRoundTrip: Date?
    }

    init(index: Int, port: Int, appId: String, token: String, interval: TimeInterval, stats: OrdinaryStats) {
        self.index = index
        self.port = port
        self.appId = appId
        self.token = token
        self.interval = interval
        self.stats = stats
    }

    /// Whether the client's subscription was answered.
    var subscribed: Bool { state.withLock { $0.subscribed } }
    /// When its last round trip completed.
    var lastRoundTrip: Date? { state.withLock { $0.lastRoundTrip } }

    func start() {
        Thread.detachNewThread { [self] in
            do {
                try run()
            } catch {
                stats.failed("client \(index): \(error)")
            }
            finished.signal()
        }
    }

    /// Asks the client to stop and waits (at most a round trip's timeout) until it has.
    func stop() {
        state.withLock { $0.stopped = true }
        _ = finished.wait(timeout: .now() + Self.roundTripTimeout + 5)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() throws {
        let socket = try RawWebSocket(port: port, path: "/api/client/v2.0/app/\(appId)/realm-sync", timeout: Self.roundTripTimeout)
        defer { socket.close() }
        var deadline = Date().addingTimeInterval(30)
        try socket.send(.bind(WireBind(session: 1, appId: appId, accessToken: token)), deadline: deadline)
        try socket.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [
            WireClassQuery(className: AbuseSchema.noteClass, query: "client == \(index)"),
        ])), deadline: deadline)
        try socket.waitFor(deadline: deadline) { message -> Bool? in
            if case .download(let d) = message, d.queryVersion == 1, d.bootstrap == .lastBatch { return true }
            return try Self.refusal(message)
        }
        state.withLock { $0.subscribed = true }
        var clientVersion: UInt64 = 0
        var requestId: UInt64 = 0
        var turn = 0
        while !isStopped {
            let started = Date()
            deadline = started.addingTimeInterval(Self.roundTripTimeout)
            turn += 1
            if turn % 2 == 1 {
                clientVersion += 1
                let note = WireInstruction.createObject(className: AbuseSchema.noteClass, primaryKey: .string("c\(index)-\(clientVersion)"), values: [
                    WirePropertyValue("client", .int(Int64(index))), WirePropertyValue("text", .string("note \(clientVersion) of client \(index)")),
                ])
                try socket.send(AbuseSchema.upload(clientVersion: clientVersion, [note]), deadline: deadline)
                let version = clientVersion
                try socket.waitFor(deadline: deadline) { message -> Bool? in
                    if case .download(let d) = message, d.progress.lastIntegratedClientVersion >= version { return true }
                    return try Self.refusal(message)
                }
            } else {
                requestId += 1
                try socket.send(.mark(WireMark(session: 1, requestId: requestId)), deadline: deadline)
                let id = requestId
                try socket.waitFor(deadline: deadline) { message -> Bool? in
                    if case .mark(let mark) = message, mark.requestId == id { return true }
                    return try Self.refusal(message)
                }
            }
            let now = Date()
            stats.roundTrip(upload: turn % 2 == 1, seconds: now.timeIntervalSince(started))
            state.withLock { $0.lastRoundTrip = now }
            let pause = interval - now.timeIntervalSince(started)
            if pause > 0 { usleep(UInt32(pause * 1_000_000)) }
        }
    }

    /// Throws for an error message: an ordinary client is never refused.
    private static func refusal(_ message: WireMessage) throws -> Bool? {
        if case .error(let error) = message {
            throw ChaosFailure(.service, "refused: \(error.code) \(error.message)")
        }
        return nil
    }
}

/// The ordinary clients' round trips: their latencies and failures.
final class OrdinaryStats: Sendable {
    private struct State {
        var latenciesMs: [Double] = []
        var uploads = 0
        var marks = 0
        var failures: [String] = []
    }
    private let state = Mutex(State())

    func roundTrip(upload: Bool, seconds: Double) {
        state.withLock {
            $0.latenciesMs.append(seconds * 1000)
            if upload { $0.uploads += 1 } else { $0.marks += 1 }
        }
    }

    func failed(_ message: String) { state.withLock { $0.failures.append(message) } }

    var uploads: Int { state.withLock { $0.uploads } }
    var marks: Int { state.withLock { $0.marks } }
    var failures: [String] { state.withLock { $0.failures } }

    /// The latency (ms) below which `fraction` of the round trips came, or nil without any.
    func percentile(_ fraction: Double) -> Double? {
        let sorted = state.withLock { $0.latenciesMs }.sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
