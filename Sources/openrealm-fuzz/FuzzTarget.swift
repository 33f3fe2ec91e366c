import Foundation

/// One fuzz target: a function that takes any bytes, feeds them to the code under test,
/// and returns normally whatever the bytes are. Bad input must come back from the code
/// under test as a thrown error; the target traps (``fuzzFailure(_:)``) only when the
/// code breaks a promise (a round trip that does not hold, a canonical form that does
/// not read back), and any crash inside the code under test is a finding.
struct FuzzTarget: Sendable {
    /// The name on the command line and of the corpus folder, `Fuzz/corpus/<name>`.
    let name: String
    /// What the bytes are and what is checked, for `openrealm-fuzz list`.
    let summary: String
    /// Runs one input.
    let run: @Sendable ([UInt8]) -> Void
    /// The seed inputs written by `openrealm-fuzz seeds DIR`: valid inputs of the kind,
    /// named by file.
    let seeds: @Sendable () -> [(name: String, bytes: [UInt8])]

    /// Every Swift target (the C targets `realm-file` and `changeset` are in `Fuzz/c`).
    static let all: [FuzzTarget] = [.rql, .wireFrame, .wireChangeset, .token, .appConfig]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Reports a broken promise and traps, so that libFuzzer keeps the input as a crash.
func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("FUZZ FAILURE: \(message)\n".utf8))
    fatalError(message, file: file, line: line)
}

extension String {
    /// The input's bytes as text the way a server would receive them: invalid UTF-8 is
    /// repaired with U+FFFD.
    init(fuzzBytes bytes: [UInt8]) {
        self = String(decoding: bytes, as: UTF8.self)
    }
}
