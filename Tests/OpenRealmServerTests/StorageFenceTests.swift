import Foundation
import XCTest

/// The storage seam's fence (`docs/design/STORAGE-SEAM.md`): the sync engine reaches a
/// store only through `Storage/` (``ServerStorage``, ``AppStorage`` and their units), so
/// no server file outside the embedded store (`Store/Embedded/`) and the operator's
/// offline file copy (`Operator/StoreFile.swift`) imports ORCore, the PostgreSQL store
/// never does, and the embedded store's types (`AppStore`, `StoreTransaction`) are named
/// only in `Store/Embedded/` and the operator's embedded-only commands. A file that
/// starts to fails here, named.
final class StorageFenceTests: XCTestCase {
    /// The repository's root, from this file's place in it.
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func swiftFiles(under folder: String) throws -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walk = FileManager.default.enumerator(atPath: base.path) else {
            throw XCTSkip("the sources are not beside the tests (\(base.path))")
        }
        return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
    }

    private func importsORCore(_ path: String) throws -> Bool {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("import ORCore") }
    }

    /// Whether `path`'s code (comments left out) names `AppStore` or `StoreTransaction`.
    private func namesTheEmbeddedStore(_ path: String) throws -> Bool {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return text.split(separator: "\n").contains { line in
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            return code.range(of: #"\b(AppStore|StoreTransaction)\b"#, options: .regularExpression) != nil
        }
    }

    func testOnlyTheEmbeddedStoreImportsORCore() throws {
        let server = try swiftFiles(under: "Sources/OpenRealmServer")
        XCTAssertGreaterThan(server.count, 100, "the server's sources were found")
        let allowed = { (path: String) in
            path.hasPrefix("Sources/OpenRealmServer/Store/Embedded/") || path == "Sources/OpenRealmServer/Operator/StoreFile.swift"
        }
        let trespassing = try server.filter { !allowed($0) }.filter(importsORCore)
        XCTAssertEqual(trespassing, [], "engine files import ORCore: they should ask the store through Storage/")
        XCTAssertTrue(try server.filter(allowed).contains(where: importsORCore), "the embedded store is where ORCore is")

        let postgres = try swiftFiles(under: "Sources/OpenRealmPostgres")
        XCTAssertFalse(postgres.isEmpty)
        XCTAssertEqual(try postgres.filter(importsORCore), [])
    }

    /// The engine holds apps as ``AppStorage`` and opens them through ``ServerStorage``:
    /// outside `Store/Embedded/`, only the operator's commands that work on the embedded
    /// store's files themselves (backup, restore marks, check, the file copy, the export
    /// `migrate` reads) name its types, and the PostgreSQL store never does.
    func testOnlyTheEmbeddedStoreAndItsOperatorCommandsNameItsTypes() throws {
        let server = try swiftFiles(under: "Sources/OpenRealmServer")
        XCTAssertGreaterThan(server.count, 100, "the server's sources were found")
        let embeddedOnly: Set<String> = [
            "Sources/OpenRealmServer/Operator/DataDirectoryBackup.swift",
            "Sources/OpenRealmServer/Operator/DataDirectoryCheck.swift",
            "Sources/OpenRealmServer/Operator/EmbeddedAppExport.swift",
            "Sources/OpenRealmServer/Operator/StoreFile.swift",
        ]
        let allowed = { (path: String) in path.hasPrefix("Sources/OpenRealmServer/Store/Embedded/") || embeddedOnly.contains(path) }
        let trespassing = try server.filter { !allowed($0) }.filter(namesTheEmbeddedStore)
        XCTAssertEqual(trespassing, [], "engine files name AppStore or StoreTransaction: they should use AppStorage and its units")
        XCTAssertTrue(try server.filter(allowed).contains(where: namesTheEmbeddedStore), "the embedded store is where they are named")
        XCTAssertEqual(try swiftFiles(under: "Sources/OpenRealmPostgres").filter(namesTheEmbeddedStore), [])
    }

    /// The integrator and its path resolution work on the store's working set
    /// (`Storage/ObjectWorkingSet.swift`) and name objects by its handles: they never
    /// name the embedded store's transaction nor hold an object key (a `UInt64` other
    /// than a list index converted for the wire).
    func testTheIntegratorNamesObjectsByTheWorkingSetsHandles() throws {
        for path in ["Sources/OpenRealmServer/Integration/Integrator.swift", "Sources/OpenRealmServer/Integration/EmbeddedPaths.swift"] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            XCTAssertFalse(text.contains("StoreTransaction"), "\(path) names the embedded store's transaction")
            XCTAssertNil(text.range(of: #"\btxn\b"#, options: .regularExpression), "\(path) uses a store transaction")
            XCTAssertNil(text.range(of: #"UInt64(?!\()"#, options: .regularExpression),
                         "\(path) holds a UInt64 (an object key?) rather than a working set's handle")
        }
    }
}
