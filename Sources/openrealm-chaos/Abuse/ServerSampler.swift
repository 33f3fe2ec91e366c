import Foundation
import Synchronization

/// Samples the server process every 200 ms on a thread of its own: its peak resident
/// memory (`VmHWM`, the kernel's high-water mark), its resident memory now (`VmRSS`)
/// and its open descriptors (`/proc/<pid>/fd`), and notices when it is gone.
final class ServerSampler: Sendable {
    /// The figures so far.
    struct Figures {
        var rssStart = 0
        var rssEnd = 0
        var peakResident = 0
        var filesStart = 0
        var filesEnd = 0
        var filesPeak = 0
        var samples = 0
        /// Set once a sample found the process gone.
        var died = false
    }

    private let pid: Int32
    private let state = Mutex((figures: Figures(), stopped: false))
    private let finished = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        self.pid = pid
        sample(first: true)
        Thread.detachNewThread { [self] in
            while !state.withLock({ $0.stopped }) {
                usleep(200_000)
                sample(first: false)
            }
            finished.signal()
        }
    }

    /// The figures so far.
    var figures: Figures { state.withLock { $0.figures } }

    /// Takes a last sample, stops sampling and returns the figures.
    func stop() -> Figures {
        state.withLock { $0.stopped = true }
        finished.wait()
        sample(first: false)
        return figures
    }

    private func sample(first: Bool) {
        let peak = SystemLimits.peakResidentBytes(of: pid)
        let rss = SystemLimits.residentBytes(of: pid)
        let files = SystemLimits.openFiles(of: pid)
        state.withLock {
            guard let peak, let rss, let files else {
                $0.figures.died = true
                return
            }
            if first {
                $0.figures.rssStart = rss
                $0.figures.filesStart = files
            }
            $0.figures.samples += 1
            $0.figures.rssEnd = rss
            $0.figures.filesEnd = files
            $0.figures.peakResident = max($0.figures.peakResident, peak)
            $0.figures.filesPeak = max($0.figures.filesPeak, files)
        }
    }
}
