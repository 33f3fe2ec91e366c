import Foundation
import Synchronization

/// Children that die with this process, whatever ends it (a thrown failure, a signal,
/// SIGKILL): each child is started through this executable's hidden `exec-child` entry,
/// which asks the kernel to SIGKILL it when its parent dies (`prctl(PR_SET_PDEATHSIG)`)
/// and then replaces itself with the real program (the request survives `execv`).
///
/// The kernel sends the signal when the *thread* that started the child ends, so every
/// child is started from one thread that lives as long as the process
/// (``ParentDeath/run(_:)``).
enum ParentDeath {
    /// The first argument that selects the entry.
    static let entry = "exec-child"

    /// The arguments that start `executable` with `arguments` through the entry, as
    /// the child of the process `parent`.
    static func wrap(_ executable: URL, _ arguments: [String], parent: Int32 = getpid()) -> (URL, [String])? {
        guard let me = Bundle.main.executableURL else { return nil }
        return (me, [entry, String(parent), executable.path] + arguments)
    }

    /// Starts `process` running `executable` with `arguments` so that it dies with this
    /// process (its other settings, pipes and files, as the caller set them).
    static func start(_ process: Process, executable: URL, arguments: [String]) throws {
        if let (me, wrapped) = wrap(executable, arguments) {
            process.executableURL = me
            process.arguments = wrapped
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        let box = UncheckedBox(process)
        try run { try box.value.run() }
    }

    /// Runs `body` (which starts a process) on the spawning thread; rethrows its error.
    static func run(_ body: @escaping @Sendable () throws -> Void) throws {
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        spawner.submit {
            do { try body() } catch let error { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The entry: `exec-child <parent pid> <program> <arguments...>`. Never returns.
    static func execChild(_ arguments: [String]) -> Never {
        guard arguments.count >= 2, let parent = Int32(arguments[0]) else {
            FileHandle.standardError.write(Data("exec-child: expected <parent pid> <program> [arguments...], got \(arguments)\n".utf8))
            exit(64)
        }
        typealias PrctlFunction = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        // prctl is variadic in C, which Swift cannot call directly; its integer
        // arguments pass the same way through a fixed prototype.
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "prctl") else {
            FileHandle.standardError.write(Data("exec-child: prctl not found\n".utf8))
            exit(70)
        }
        let prctl = unsafeBitCast(symbol, to: PrctlFunction.self)
        let PR_SET_PDEATHSIG: Int32 = 1
        guard prctl(PR_SET_PDEATHSIG, UInt(SIGKILL), 0, 0, 0) == 0 else {
            FileHandle.standardError.write(Data("exec-child: prctl(PR_SET_PDEATHSIG) failed: errno \(errno)\n".utf8))
            exit(70)
        }
        // The parent may have died before the request was made.
        guard getppid() == parent else { exit(70) }
        let program = arguments[1]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.dropFirst().map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        FileHandle.standardError.write(Data("exec-child: cannot execute '\(program)': errno \(errno)\n".utf8))
        exit(70)
    }

    private static let spawner = SpawnerThread()
}

/// One thread, alive for the whole process, that runs submitted closures in order.
private final class SpawnerThread: Sendable {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                let work = queue.withLock { $0.removeFirst() }
                work()
            }
        }
        thread.name = "openrealm-chaos spawner"
        thread.start()
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(work) }
        ready.signal()
    }
}

/// Hands a value that is used by one thread at a time to the spawning thread.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
