import Foundation
import XCTest
@testable import OpenRealmQuery

/// The query evaluator against ORCore's query engine: random objects with a property of
/// every kind and edge values (``QueryEvaluatorFixture``), random predicates written as
/// RQL text (``QueryEvaluatorPredicates``), and for each predicate the set of objects
/// ORCore selects must be the set whose read-back images the evaluator matches, or
/// both must refuse the predicate with the same error. A mismatch prints the seed, the
/// predicate, its arguments and the objects on which the two disagree; set
/// QUERY_EVALUATOR_SEED to replay a seed.
final class QueryEvaluatorDifferentialTests: XCTestCase {
    func testEvaluatorSelectsWhatORCoreSelects() throws {
        let seed = ProcessInfo.processInfo.environment["QUERY_EVALUATOR_SEED"].flatMap(UInt64.init) ?? 20_261_128
        let fixture = try QueryEvaluatorFixture(seed: seed, targets: 12, objects: 60)
        var generator = QueryEvaluatorPredicates(seed: seed &+ 1, values: fixture.values)
        var selective = 0, refused = 0, failures = 0
        let cases = 3000
        for n in 0..<cases where failures < 10 {
            let className = n % 5 == 4 ? "Target" : "Obj"
            let (text, arguments) = generator.next(className)
            let context = "seed \(seed), case \(n), \(className): \(text)" + (arguments.isEmpty ? "" : " with \(arguments)")
            let query: ParsedQuery
            do {
                query = try QueryParser.parse(text, arguments: arguments)
            } catch {
                failures += 1
                XCTFail("\(context): the generator wrote a predicate the parser refuses: \(error)")
                continue
            }
            let orcore = Result { try fixture.orcoreMatches(query, className: className) }
            let evaluated = Result {
                let evaluator = try QueryEvaluator(query.predicate, className: className, schema: fixture.schema)
                return try fixture.evaluatorMatches(evaluator, className: className)
            }
            switch (orcore, evaluated) {
            case (.success(let expected), .success(let got)):
                if expected != got {
                    failures += 1
                    XCTFail(mismatch(context, query, fixture, className, expected, got))
                }
                if !expected.isEmpty && expected.count < fixture.images[className]!.count { selective += 1 }
            case (.failure(let a), .failure(let b)):
                refused += 1
                XCTAssertEqual("\(a)", "\(b)", "\(context): refused with different errors")
            case (.failure(let error), .success):
                failures += 1
                XCTFail("\(context): ORCore refused (\(error)) but the evaluator accepted")
            case (.success, .failure(let error)):
                failures += 1
                XCTFail("\(context): the evaluator refused (\(error)) but ORCore accepted")
            }
        }
        // The generator must mostly write valid, selective predicates, or the test proves little.
        XCTAssertGreaterThan(selective, cases / 3, "seed \(seed): too few selective predicates")
        XCTAssertLessThan(refused, cases / 8, "seed \(seed): too many refused predicates")
    }

    private func mismatch(_ context: String, _ query: ParsedQuery, _ fixture: QueryEvaluatorFixture, _ className: String,
                          _ expected: Set<UInt64>, _ got: Set<UInt64>) -> String {
        let images = fixture.images[className]!
        let onlyORCore = expected.subtracting(got).sorted().prefix(3).map { images[$0]!.description }
        let onlyEvaluator = got.subtracting(expected).sorted().prefix(3).map { images[$0]!.description }
        return "\(context) (normalized: \(query.predicate.normalized())): ORCore and the evaluator disagree\n"
            + "selected only by ORCore: \(onlyORCore.joined(separator: "\n  "))\n"
            + "selected only by the evaluator: \(onlyEvaluator.joined(separator: "\n  "))"
    }
}
