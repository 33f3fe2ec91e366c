import ArgumentParser
import Foundation
import OpenRealm
import OpenRealmTestSupport

/// The child process of `crash` (hidden): commits random transactions until killed.
///
/// It prints `ready <last txn in the file>` once the realm is open, then after each
/// `commitWrite` returns, `commit <txn> <digest>`. A line is written only after the
/// commit, so every id the parent reads was committed when the kill came.
struct CrashWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-writer",
        abstract: "The writer process of `crash`: commits random transactions until killed.",
        shouldDisplay: false
    )

    @Option(help: "The realm file to write.")
    var path: String

    @Option(help: "full or skipMetaSync.")
    var durability: DurabilityChoice = .full

    @Option(help: "Seed of the random writes.")
    var seed: UInt64 = 1

    @Option(help: "Stop after this many transactions (a guard in case the parent is gone).")
    var maxTransactions: Int = 1_000_000

    func run() throws {
        let realm = try Realm(configuration: CrashRealm.configuration(path: path, durability: durability))
        var txn: Int = realm.objects(ChaosCommit.self).max(ofProperty: "txn") ?? 0
        report("ready \(txn)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<maxTransactions {
            txn += 1
            realm.beginWrite()
            let writes = RandomWrites.apply(to: realm, using: &random)
            let digest = StateDigest.of(realm)
            let marker = ChaosCommit()
            marker.txn = txn
            marker.digest = digest
            marker.writes = writes
            realm.add(marker)
            try realm.commitWrite()
            report("commit \(txn) \(digest)")
        }
    }

    /// Writes one line to the parent's pipe straight away (FileHandle does not buffer).
    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The random adds, updates and deletes of one transaction.
enum RandomWrites {
    /// Primary keys are drawn from 0..<keySpace, so adds, updates and deletes meet.
    static let keySpace = 64

    /// Applies 1–6 random writes (sometimes a batch of 40 adds) and returns how many.
    static func apply(to realm: Realm, using random: inout SplitMix64) -> Int {
        if Int.random(in: 0..<20, using: &random) == 0 {
            for _ in 0..<40 { upsert(realm, id: Int.random(in: 0..<keySpace, using: &random), using: &random) }
            return 40
        }
        let count = Int.random(in: 1...6, using: &random)
        for _ in 0..<count {
            let id = Int.random(in: 0..<keySpace, using: &random)
            if Int.random(in: 0..<5, using: &random) == 0 {
                if let item = realm.object(ofType: ChaosItem.self, forPrimaryKey: id) { realm.delete(item) }
            } else {
                upsert(realm, id: id, using: &random)
            }
        }
        return count
    }

    /// Creates item `id` or changes its fields and lists.
    private static func upsert(_ realm: Realm, id: Int, using random: inout SplitMix64) {
        let item: ChaosItem
        if let existing = realm.object(ofType: ChaosItem.self, forPrimaryKey: id) {
            item = existing
        } else {
            item = ChaosItem()
            item.id = id
            realm.add(item)
        }
        item.text = String(repeating: "x", count: Int.random(in: 0..<200, using: &random)) + "\(random.next())"
        item.value = Int.random(in: Int.min...Int.max, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            for _ in 0..<Int.random(in: 1...8, using: &random) { item.numbers.append(Int.random(in: -1000...1000, using: &random)) }
        case 1:
            if !item.numbers.isEmpty { item.numbers.remove(at: Int.random(in: 0..<item.numbers.count, using: &random)) }
        case 2:
            item.numbers.removeAll()
        default:
            item.tags.append("tag\(Int.random(in: 0..<100, using: &random))")
        }
        if item.tags.count > 12 { item.tags.removeFirst() }
        if Int.random(in: 0..<2, using: &random) == 0,
           let friend = realm.object(ofType: ChaosItem.self, forPrimaryKey: Int.random(in: 0..<keySpace, using: &random)) {
            item.friends.append(friend)
            if item.friends.count > 8 { item.friends.removeFirst() }
        }
    }
}
