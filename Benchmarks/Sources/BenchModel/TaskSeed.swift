import Foundation
import OpenRealm

/// The values of task `i`, the same on every side of the benchmark (the C twin is
/// `make_task` in CLMDBBench): ids ascend with `i`, a sixteenth of the assignees are
/// nil, the rest spread over 100 names, and about three quarters of the tasks have
/// `progressMinutes >= 60`.
public enum TaskSeed {
    /// The 12 bytes of task `i`'s ObjectId: a fixed timestamp, then `i` big-endian.
    public static func idBytes(_ i: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x66, 0, 0, 0]
        for b in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: UInt64(i) >> (56 - 8 * UInt64(b)))) }
        return bytes
    }

    /// Task `i`'s ObjectId (OpenRealm takes ObjectIds from their hex form).
    public static func objectId(_ i: Int) -> ObjectId {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for byte in idBytes(i) { hex += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return try! ObjectId(string: String(decoding: hex, as: UTF8.self))
    }

    public static func taskName(_ i: Int) -> String { "task \(i)" }
    public static func assignee(_ i: Int) -> String? { i % 16 == 15 ? nil : "user \(i % 100)" }
    public static func completed(_ i: Int) -> Bool { i % 3 == 0 }
    public static func progressMinutes(_ i: Int) -> Int { (i &* 7919) % 240 }
    /// Whole seconds, so every side stores the same instant exactly.
    public static func dueDate(_ i: Int) -> Date { Date(timeIntervalSince1970: Double(1_700_000_000 + i)) }

    /// An unmanaged OpenRealm task `i`, filled as a user fills one.
    public static func task(_ i: Int, id: ObjectId) -> Task {
        let task = Task()
        task._id = id
        task.taskName = taskName(i)
        task.assignee = assignee(i)
        task.completed = completed(i)
        task.progressMinutes = progressMinutes(i)
        task.dueDate = dueDate(i)
        return task
    }

    /// `count` indexes in [0, n) from a fixed-seed generator (the random keys of the
    /// primary-key lookups, the same for every side).
    public static func randomIndexes(_ count: Int, below n: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
    }
}
