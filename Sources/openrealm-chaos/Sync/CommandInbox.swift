import Foundation
import Synchronization

/// The command lines a child reads from its standard input on a thread of its own.
///
/// `reconnect` is acted on at once (through `onReconnect`); other commands are kept
/// until taken. The end of the input counts as `exit`.
final class CommandInbox: Sendable {
    private let received = Mutex<[String]>([])

    init(onReconnect: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            while let line = readLine() {
                let command = line.trimmingCharacters(in: .whitespaces)
                if command == "reconnect" {
                    onReconnect()
                } else {
                    received.withLock { $0.append(command) }
                }
            }
            received.withLock { $0.append("exit") }
        }
    }

    /// Whether `command` (or `exit`) has arrived, without taking it.
    func has(_ command: String) -> Bool {
        received.withLock { $0.contains(command) || $0.contains("exit") }
    }

    /// Takes `command` if it has arrived.
    func take(_ command: String) -> Bool {
        received.withLock { list in
            guard let index = list.firstIndex(of: command) else { return false }
            list.remove(at: index)
            return true
        }
    }

    /// Blocks until `command` (or `exit`) arrives; returns false for `exit`.
    func wait(for command: String) -> Bool {
        while true {
            let state = received.withLock { list -> Bool? in
                if let index = list.firstIndex(of: command) {
                    list.remove(at: index)
                    return true
                }
                return list.contains("exit") ? false : nil
            }
            if let state { return state }
            usleep(5_000)
        }
    }
}
