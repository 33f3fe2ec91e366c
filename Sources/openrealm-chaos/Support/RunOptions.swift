import ArgumentParser
import Foundation

/// The options of every run that starts its own `openrealm-server` child and keeps its
/// files in a folder: `--server` and `--directory`, and what the run does with them.
struct RunOptions: ParsableArguments {
    @Option(help: "The openrealm-server executable (default: the one beside this executable).")
    var server: String?

    @Option(help: "Directory for the run's files: server data, logs, realm and client files (a new temporary one by default; removed when the run passes).")
    var directory: String?

    /// The run's folder: `--directory`, or a new temporary one named after `prefix`.
    func makeFolder(prefix: String) throws -> URL {
        try RunDirectory.make(directory, prefix: prefix)
    }

    /// A server child (not started) keeping its data in `folder/server-data` (or in the
    /// PostgreSQL store at `storeURL`) and its log in `folder` (`<name>-<start>.log`).
    func makeServer(in folder: URL, developmentMode: Bool = false, extraArguments: [String] = [],
                    storeURL: String? = nil, name: String = "server") throws -> ServerProcess {
        try ServerProcess(executable: server.map { URL(fileURLWithPath: $0) }, dataDirectory: folder.appendingPathComponent("server-data"),
                          logDirectory: folder, developmentMode: developmentMode, extraArguments: extraArguments,
                          storeURL: storeURL, name: name)
    }

    /// After a run that passed: removes the folder unless `--directory` named it.
    func removeTemporaryFolder(_ folder: URL) {
        if directory == nil { try? FileManager.default.removeItem(at: folder) }
    }
}
