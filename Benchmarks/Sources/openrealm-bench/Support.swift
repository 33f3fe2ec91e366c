import Foundation

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Runs `body` and returns its duration in nanoseconds.
@inline(__always)
func timed(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = now()
    try body()
    return now() - start
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Peak resident memory of this process (VmHWM of /proc/self/status), in bytes.
/// Not getrusage's ru_maxrss: on Linux a spawned child inherits its parent's figure.
func peakRSS() -> Int { procStatus("VmHWM:") }

/// Current resident memory (VmRSS of /proc/self/status), in bytes.
func currentRSS() -> Int { procStatus("VmRSS:") }

/// A memory field of /proc/<pid>/status (this process by default), in bytes.
func procStatus(pid: Int32? = nil, _ field: String) -> Int {
    let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field) {
        let digits = line.split(separator: " ").compactMap { Int($0) }
        return (digits.first ?? 0) * 1024
    }
    return 0
}

/// The CPU time (user and system) a process has used so far, in nanoseconds: fields 14
/// and 15 of `/proc/PID/stat` (this process when `pid` is nil); 0 when unreadable.
func cpuTime(pid: Int32? = nil) -> UInt64 {
    let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return 0 }
    // After the command name, in parentheses: field 3 (state) onwards.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return 0 }
    let ticks = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    return (user + system) * 1_000_000_000 / ticks
}

/// The size of a file in bytes (0 when missing).
func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : 0
}

/// An error of the harness, with a message naming what failed.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Formats a figure for the table: thousands separated, one decimal under 100.
func format(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    if value < 100 { return String(format: "%.1f", value) }
    let digits = String(Int(value.rounded()))
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0 && i % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return String(out.reversed())
}

func formatRatio(_ a: Double, _ b: Double) -> String {
    guard a.isFinite, b.isFinite, b > 0 else { return "–" }
    return String(format: "%.2f×", a / b)
}

func formatBytes(_ bytes: Int) -> String {
    String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}
