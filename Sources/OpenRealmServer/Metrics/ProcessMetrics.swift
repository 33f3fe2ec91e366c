import Foundation
import Prometheus
#if canImport(Glibc)
import Glibc
#endif

/// The process's own metrics under the names every Prometheus client library uses, read
/// from `/proc/self` at each scrape (Linux; elsewhere there are none):
///
/// | metric | type | what |
/// |---|---|---|
/// | `process_cpu_seconds_total` | counter | user and system CPU time spent |
/// | `process_resident_memory_bytes` | gauge | resident memory |
/// | `process_virtual_memory_bytes` | gauge | virtual memory |
/// | `process_open_fds` | gauge | open file descriptors (sockets, store files, ...) |
/// | `process_max_fds` | gauge | the open file descriptor limit (`ulimit -n`) |
/// | `process_start_time_seconds` | gauge | when the process started, in seconds since the epoch |
///
/// Every server in a process reports the same values: they are the process's.
final class ProcessMetrics: Sendable {
    private let cpuSeconds: Counter
    private let residentMemory: Gauge
    private let virtualMemory: Gauge
    private let openFileDescriptors: Gauge
    private let maxFileDescriptors: Gauge
    private let startTime: Gauge
    private let ticksPerSecond: Double
    private let pageSize: Double

    /// Registers the metrics on `registry`; nil where there is no `/proc/self/stat`.
    init?(registry: PrometheusCollectorRegistry) {
        guard let stat = Self.readStat() else { return nil }
        ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
        pageSize = Double(max(1, sysconf(Int32(_SC_PAGESIZE))))
        cpuSeconds = registry.makeCounter(descriptor: .openRealm("process_cpu_seconds_total", "Total user and system CPU time spent in seconds."))
        residentMemory = registry.makeGauge(descriptor: .openRealm("process_resident_memory_bytes", "Resident memory size in bytes."))
        virtualMemory = registry.makeGauge(descriptor: .openRealm("process_virtual_memory_bytes", "Virtual memory size in bytes."))
        openFileDescriptors = registry.makeGauge(descriptor: .openRealm("process_open_fds", "Number of open file descriptors."))
        maxFileDescriptors = registry.makeGauge(descriptor: .openRealm("process_max_fds", "Maximum number of open file descriptors."))
        startTime = registry.makeGauge(descriptor: .openRealm("process_start_time_seconds", "Start time of the process since unix epoch in seconds."))
        if let boot = Self.bootTime() {
            startTime.set(to: boot + stat.startTicks / ticksPerSecond)
        }
        refresh()
    }

    /// Reads the current values. Called under the scrape lock (``ServerMetrics/exposition()``),
    /// so the CPU counter's reset-and-add is never interleaved with another.
    func refresh() {
        if let stat = Self.readStat() {
            // A counter only goes up; CPU time only goes up too, so setting it is safe.
            cpuSeconds.reset()
            cpuSeconds.increment(by: (stat.userTicks + stat.systemTicks) / ticksPerSecond)
            residentMemory.set(to: stat.residentPages * pageSize)
            virtualMemory.set(to: stat.virtualBytes)
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing's own descriptor is among them while it runs.
            openFileDescriptors.set(to: Double(max(0, open.count - 1)))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            maxFileDescriptors.set(to: Double(limit.rlim_cur))
        }
    }

    /// The fields of `/proc/self/stat` used here (proc(5)), in ticks, pages and bytes.
    struct Stat {
        var userTicks: Double
        var systemTicks: Double
        var startTicks: Double
        var virtualBytes: Double
        var residentPages: Double
    }

    /// Parses `/proc/self/stat`: after the command name in parentheses (which may itself
    /// hold spaces and parentheses, hence the last `)`), field 3 onwards, space-separated.
    static func parseStat(_ text: String) -> Stat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): utime is 14, stime 15, starttime 22, vsize 23, rss 24.
        func field(_ number: Int) -> Double? {
            let i = number - 3
            return i < fields.count ? Double(fields[i]) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
              let resident = field(24) else { return nil }
        return Stat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    private static func readStat() -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        return parseStat(text)
    }

    /// The boot time, seconds since the epoch (`btime` in `/proc/stat`).
    private static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
