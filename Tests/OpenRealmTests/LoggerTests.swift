import Foundation
import RealmSwift
import Synchronization
import XCTest

final class LoggedObject: Object {
    @Persisted var value = 0
}

/// `Logger` as a Realm Swift SDK user sets it up: `Logger.shared`, levels, a log function.
final class LoggerTests: XCTestCase {
    private var saved: Logger!

    override func setUp() {
        saved = Logger.shared
    }

    override func tearDown() {
        Logger.shared = saved
    }

    private final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var text: String { lines.withLock { $0.joined(separator: "\n") } }
        func clear() { lines.withLock { $0.removeAll() } }
        func append(_ level: LogLevel, _ message: String) { lines.withLock { $0.append("\(level) \(message)") } }
    }

    /// Opens a new realm file, writes to it and closes it.
    private func openWriteAndClose() throws {
        let realm = try Realm(configuration: makeFileConfiguration([LoggedObject.self]))
        try realm.write { realm.create(LoggedObject.self) }
    }

    func testTheLevelDecidesWhatIsLogged() throws {
        let lines = Lines()
        let logger = Logger(level: .off) { level, message in lines.append(level, message) }
        Logger.shared = logger
        XCTAssertEqual(Logger.shared.level, .off)
        /// What opening, writing to and closing a new realm logs at `level`.
        func logged(at level: LogLevel) throws -> String {
            lines.clear()
            logger.level = level
            try openWriteAndClose()
            return lines.text
        }
        XCTAssertEqual(try logged(at: .off), "")

        let detail = try logged(at: .detail)
        XCTAssertTrue(detail.contains("detail DB: Open file: "), detail)
        XCTAssertTrue(detail.contains("detail DB: Close file: "), detail)
        XCTAssertFalse(detail.contains("trace DB:"), detail)

        let trace = try logged(at: .trace)
        XCTAssertTrue(trace.contains("detail DB: Open file: "), trace)
        XCTAssertTrue(trace.contains("trace DB: Realm opened: "), trace)
        XCTAssertTrue(trace.contains("trace DB: Commit of version "), trace)

        XCTAssertEqual(try logged(at: .info), "")
    }

    func testReplacingTheSharedLogger() throws {
        XCTAssertEqual(Logger.shared.level, .info, "the default level")
        let first = Lines(), second = Lines()
        Logger.shared = Logger(level: .all) { level, message in first.append(level, message) }
        try openWriteAndClose()
        XCTAssertFalse(first.text.isEmpty)
        Logger.shared = Logger(level: .trace) { level, message in second.append(level, message) }
        XCTAssertEqual(Logger.shared.level, .trace)
        let before = first.text
        try openWriteAndClose()
        XCTAssertEqual(first.text, before, "the replaced logger still received messages")
        XCTAssertTrue(second.text.contains("DB: Open file: "))
    }

    func testSyncLoggingFollowsTheSharedLoggerUntilSet() {
        let app = App(id: "logger-tests-\(UUID().uuidString)")
        Logger.shared = Logger(level: .debug) { _, _ in }
        XCTAssertEqual(app.syncManager.logLevel, .debug)
        app.syncManager.logLevel = .warn
        Logger.shared.level = .trace
        XCTAssertEqual(app.syncManager.logLevel, .warn)
    }
}
