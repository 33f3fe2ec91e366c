import Foundation

/// The folder a run keeps its files in: the one `--directory` names, or a new temporary
/// one named after the command.
enum RunDirectory {
    /// Creates (if needed) and returns `given`, or a new `<prefix>-<UUID>` folder under the
    /// temporary directory.
    static func make(_ given: String?, prefix: String) throws -> URL {
        let url = given.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ChaosFailure(.usage, "Cannot create the directory '\(url.path)': \(error.localizedDescription)")
        }
        return url
    }
}
