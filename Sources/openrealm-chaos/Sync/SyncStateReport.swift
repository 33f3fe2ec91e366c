import Foundation
import RealmSwift

/// What one replica (a client's realm) holds, in the lines a `sync-client` prints:
/// `log <client> <entries> <notes> <problem>` for each client's log, then
/// `state <digest> <notes>`. The parent compares reports of several replicas.
struct SyncStateReport: Equatable, CustomStringConvertible {
    /// Per client: its log and notes as this replica holds them.
    struct ClientLog: Equatable {
        /// The number of log entries (n when the log reads 1...n).
        var entries: Int
        /// The number of that client's notes.
        var notes: Int
        /// "ok", or the first problem: a repeated entry (`duplicate@i`), a missing seq
        /// (`gap@seq`), every seq once but out of order (`reordered@i`), or a missing
        /// note (`note-missing@seq`).
        var problem: String
    }

    var logs: [String: ClientLog] = [:]
    /// A 64-bit FNV-1a digest of every note and log, in id order.
    var digest = ""
    var notes = 0

    var description: String {
        let parts = logs.keys.sorted().map { "\($0): \(logs[$0]!.entries) entries, \(logs[$0]!.notes) notes, \(logs[$0]!.problem)" }
        return "digest \(digest), \(notes) notes [\(parts.joined(separator: "; "))]"
    }

    /// The report of what `realm` holds now.
    static func of(_ realm: Realm) -> SyncStateReport {
        var report = SyncStateReport()
        var digest = TextDigest()
        var seqsByClient: [String: Set<Int>] = [:]
        let notes = realm.objects(ChaosNote.self).sorted { $0._id < $1._id }
        for note in notes {
            digest.mix("\(note._id)|\(note.client)|\(note.seq)|\(note.text)|\(note.edits)")
            seqsByClient[note.client, default: []].insert(note.seq)
        }
        report.notes = notes.count
        for log in realm.objects(ChaosLog.self).sorted(by: { $0._id < $1._id }) {
            let entries = Array(log.entries)
            digest.mix("\(log._id)|" + entries.map(String.init).joined(separator: ","))
            var problem = "ok"
            // The problem names the position and the entries around it.
            func around(_ index: Int) -> String {
                entries[max(0, index - 2)..<min(entries.count, index + 4)].map(String.init).joined(separator: ",")
            }
            var seen = Set<Int>()
            for (index, entry) in entries.enumerated() {
                if seen.contains(entry) { problem = "duplicate@\(index):\(around(index))"; break }
                seen.insert(entry)
            }
            if problem == "ok", let missing = (0..<entries.count).map({ $0 + 1 }).first(where: { !seen.contains($0) }) {
                problem = "gap@\(missing)"
            }
            if problem == "ok", let index = entries.indices.first(where: { entries[$0] != $0 + 1 }) {
                problem = "reordered@\(index):\(around(index))"
            }
            let seqs = seqsByClient[log._id] ?? []
            if problem == "ok" || problem.hasPrefix("reordered"),
               let missing = (0..<entries.count).map({ $0 + 1 }).first(where: { !seqs.contains($0) }) {
                problem = "note-missing@\(missing)"
            }
            report.logs[log._id] = ClientLog(entries: entries.count, notes: seqs.count, problem: problem)
        }
        for client in seqsByClient.keys where report.logs[client] == nil {
            report.logs[client] = ClientLog(entries: 0, notes: seqsByClient[client]!.count, problem: "log-missing")
        }
        report.digest = digest.hex
        return report
    }

    /// The lines that carry this report.
    var lines: [String] {
        logs.keys.sorted().map { "log \($0) \(logs[$0]!.entries) \(logs[$0]!.notes) \(logs[$0]!.problem)" }
            + ["state \(digest) \(notes)"]
    }

    /// Reads the report that ends at line `end` (the `state` line) of `output`.
    static func parse(_ output: [String], end: Int) throws -> SyncStateReport {
        var report = SyncStateReport()
        let state = output[end].split(separator: " ")
        guard state.count == 3, state[0] == "state", let notes = Int(state[2]) else {
            throw ChaosFailure(.writer, "Not a state line: '\(output[end])'.")
        }
        report.digest = String(state[1])
        report.notes = notes
        var index = end - 1
        while index >= 0, output[index].hasPrefix("log ") {
            let parts = output[index].split(separator: " ")
            guard parts.count == 5, let entries = Int(parts[2]), let count = Int(parts[3]) else {
                throw ChaosFailure(.writer, "Not a log line: '\(output[index])'.")
            }
            report.logs[String(parts[1])] = ClientLog(entries: entries, notes: count, problem: String(parts[4]))
            index -= 1
        }
        return report
    }
}
