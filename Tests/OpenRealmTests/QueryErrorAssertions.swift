import Foundation
import XCTest
@testable import OpenRealmQuery

/// The check the parser's and the compiler's tests make of a query that must fail.
extension XCTestCase {
    /// Asserts that `body` throws a `QueryError` of `kind` whose message contains every
    /// string of `mentions`, and returns the error for further checks (nil after a
    /// failure). When nothing is thrown, `body` returns what it made ("parsed … as …"),
    /// which the failure shows.
    @discardableResult
    func assertQueryError(_ kind: QueryError.Kind, mentions: [String] = [],
                          file: StaticString = #filePath, line: UInt = #line,
                          _ body: () throws -> String) -> QueryError? {
        do {
            let made = try body()
            XCTFail(made, file: file, line: line)
        } catch let e as QueryError {
            XCTAssertEqual(e.kind, kind, e.message, file: file, line: line)
            for m in mentions { XCTAssertTrue(e.message.contains(m), "'\(m)' not in: \(e.message)", file: file, line: line) }
            return e
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }
}
