import Foundation
import Synchronization

/// What each attack of an `abuse` run saw, counted by outcome ("answered 431",
/// "refused: limitsExceeded", "closed by the server"), with the lifetimes of the
/// connections the server ended, shared between the attack threads.
final class AbuseTally: Sendable {
    private struct Attack {
        var outcomes: [String: Int] = [:]
        var lifetimes: [Double] = []
        var first: [String: String] = [:]
    }
    private let attacks = Mutex<[String: Attack]>([:])

    /// Counts one `outcome` of `attack`; `detail` (an error message) is kept for the
    /// first of each outcome.
    func count(_ attack: String, _ outcome: String, detail: String? = nil) {
        attacks.withLock {
            $0[attack, default: Attack()].outcomes[outcome, default: 0] += 1
            if let detail, $0[attack]?.first[outcome] == nil { $0[attack]?.first[outcome] = detail }
        }
    }

    /// Records how long a connection of `attack` lived before the server ended it.
    func lived(_ attack: String, seconds: Double) {
        attacks.withLock { $0[attack, default: Attack()].lifetimes.append(seconds) }
    }

    /// The outcomes of `attack`, most frequent first.
    func outcomes(_ attack: String) -> [(outcome: String, count: Int)] {
        attacks.withLock { $0[attack]?.outcomes ?? [:] }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
    }

    /// How many times `attack` had `outcome`.
    func count(of attack: String, _ outcome: String) -> Int {
        attacks.withLock { $0[attack]?.outcomes[outcome] ?? 0 }
    }

    /// The total count of `attack`'s outcomes.
    func total(_ attack: String) -> Int { outcomes(attack).reduce(0) { $0 + $1.count } }

    /// The shortest and longest lifetimes recorded for `attack`.
    func lifetimes(_ attack: String) -> (min: Double, max: Double)? {
        let values = attacks.withLock { $0[attack]?.lifetimes ?? [] }
        guard let low = values.min(), let high = values.max() else { return nil }
        return (low, high)
    }

    /// The first detail recorded for `attack`'s `outcome`.
    func firstDetail(_ attack: String, _ outcome: String) -> String? {
        attacks.withLock { $0[attack]?.first[outcome] }
    }

    /// One line for the report: `12 (answered 431: 10, closed without an answer: 2)`.
    func summary(_ attack: String) -> String {
        let outcomes = outcomes(attack)
        guard !outcomes.isEmpty else { return "none" }
        var text = "\(outcomes.reduce(0) { $0 + $1.count }) (" + outcomes.map { "\($0.outcome): \($0.count)" }.joined(separator: ", ") + ")"
        if let (low, high) = lifetimes(attack) {
            text += String(format: "; the server ended them after %.1f–%.1f s", low, high)
        }
        return text
    }
}

/// What every attack of a run shares: the server, the app and an attacker's access
/// token, when to stop, and the tally.
final class AbuseTarget: Sendable {
    /// The server's loopback port.
    let port: Int
    /// The app the ordinary clients use, attacked alongside them.
    let appId: String
    /// An access token of an anonymous user of the app, for the attacks that bind.
    let token: String
    /// When the attacks end.
    let end: Date
    /// What the attacks saw.
    let tally = AbuseTally()
    private let stopped = Mutex(false)

    init(port: Int, appId: String, token: String, end: Date) {
        self.port = port
        self.appId = appId
        self.token = token
        self.end = end
    }

    /// Whether the attacks should go on (before the end, and not stopped).
    var isRunning: Bool { !stopped.withLock { $0 } && Date() < end }

    /// Ends the attacks early (the server died, or the run failed).
    func stop() { stopped.withLock { $0 = true } }

    /// The sync endpoint's path.
    var syncPath: String { "/api/client/v2.0/app/\(appId)/realm-sync" }

    /// Sleeps `seconds`, in short steps, returning early when the attacks end.
    func pause(_ seconds: Double) {
        let until = Date().addingTimeInterval(seconds)
        while isRunning {
            let left = until.timeIntervalSinceNow
            guard left > 0 else { return }
            usleep(UInt32(min(left, 0.1) * 1_000_000))
        }
    }
}

/// One kind of attack: it runs on a thread of its own until the target stops or its
/// own count bound is reached, and counts what happened in the target's tally under
/// its ``name``.
protocol Attack: Sendable {
    /// How the report names it.
    var name: String { get }
    /// Runs the attack; returns when `target.isRunning` turns false or the bound is
    /// reached, within a few seconds (every wait has a deadline).
    func run(against target: AbuseTarget)
}
