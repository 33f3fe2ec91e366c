import Foundation

/// `openrealm-server check`: `orc_env_check` on every app store of a data directory
/// (pages first, then the logical consistency ORCore knows: indexes, primary keys,
/// links, counts) and the signing key's size. Offline: the caller holds the
/// ``DataDirectoryLock``; to check a directory a server is using, back it up and check
/// the backup.
public enum DataDirectoryCheck {
    /// The verdict on one file.
    public struct Finding: Sendable, Hashable {
        /// What was checked: `signing.key` or `app '<id>'`.
        public var subject: String
        /// The file.
        public var path: String
        /// How many problems were found (0: none).
        public var problems: Int
        /// The first problem, or a summary of a good file.
        public var detail: String
    }

    /// What a check found.
    public struct Report: Sendable, Hashable {
        /// One finding per file checked, the signing key first, then apps by id.
        public var findings: [Finding]

        /// Whether every file checked is sound.
        public var isHealthy: Bool { findings.allSatisfy { $0.problems == 0 } }

        /// The report as lines of text, one per file, then a summary.
        public var text: String {
            var lines = findings.map { f in
                f.problems == 0 ? "ok       \(f.subject): \(f.detail)" : "DAMAGED  \(f.subject): \(f.problems) problem(s): \(f.detail) (\(f.path))"
            }
            let bad = findings.filter { $0.problems > 0 }.count
            lines.append(bad == 0 ? "\(findings.count) file(s) checked, no problems" : "\(findings.count) file(s) checked, \(bad) damaged")
            return lines.joined(separator: "\n")
        }
    }

    /// Checks every store of `dataDirectory`.
    ///
    /// - Throws: ``ServerError`` when the directory is missing or its apps cannot be
    ///   listed; a damaged or unreadable store is a finding, not a throw.
    public static func run(dataDirectory: URL) throws -> Report {
        let directory = DataDirectory(dataDirectory)
        try directory.requireExisting()
        var findings: [Finding] = []
        let key = dataDirectory.appendingPathComponent(SigningKey.fileName)
        if FileManager.default.fileExists(atPath: key.path) {
            let size = FileManager.default.contents(atPath: key.path)?.count
            findings.append(Finding(subject: SigningKey.fileName, path: key.path, problems: size == 32 ? 0 : 1,
                                    detail: size.map { $0 == 32 ? "32 bytes" : "holds \($0) bytes, not 32" } ?? "cannot be read"))
        }
        for appId in try directory.appIds() {
            let path = directory.storePath(appId: appId)
            let subject = "app '\(appId)'"
            do {
                let store = try StoreFile(path: path, verify: true)
                if let damage = store.check() {
                    findings.append(Finding(subject: subject, path: path, problems: damage.problems, detail: damage.first))
                } else {
                    findings.append(Finding(subject: subject, path: path, problems: 0, detail: "version \(try store.committedVersion())"))
                }
            } catch {
                findings.append(Finding(subject: subject, path: path, problems: 1, detail: "\(error)"))
            }
        }
        return Report(findings: findings)
    }
}
