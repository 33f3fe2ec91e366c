import Foundation
import XCTest
@testable import OpenRealmQuery

/// Inputs the `rql` fuzz target (docs/RELIABILITY.md, "Fuzzing") found breaking a
/// promise, kept in `Fuzz/regressions/rql/` with the error each must now give.
final class RQLFuzzRegressionTests: XCTestCase {
    private func regression(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/rql/\(name)")
        return String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// `ANY ANY == 'swift'` parsed as the quantifier ANY over a property named `ANY`, and
    /// its canonical form `ANY == "swift"` (ANY is implicit there) did not parse: the
    /// canonical form of an unnamed subscription must read back. Keywords now cannot start
    /// a key path after a quantifier, as they cannot without one.
    func testQuantifiedKeywordKeyPathIsRefused() throws {
        let text = try regression("quantified-keyword-key-path.rql")
        XCTAssertThrowsError(try QueryParser.parse(text)) { error in
            let e = error as? QueryError
            XCTAssertEqual(e?.kind, .syntax)
            XCTAssertEqual(e?.message.contains("expected a key path after 'ANY'"), true, "\(error)")
        }
        for query in ["ANY any == 1", "SOME some == 1", "ALL none == 1", "NONE all == 1", "ANY truepredicate == 1"] {
            XCTAssertThrowsError(try QueryParser.parse(query), query)
        }
        // Keywords later in a key path, and quantified ordinary names, are untouched.
        for query in ["ANY tags == 'swift'", "ALL friends.any == 1", "NONE x.all > 2"] {
            let parsed = try QueryParser.parse(query)
            XCTAssertEqual(try QueryParser.parse(parsed.description).description, parsed.description, query)
        }
    }
}
