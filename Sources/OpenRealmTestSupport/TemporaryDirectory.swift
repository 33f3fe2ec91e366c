import Foundation

/// Scratch directories for tests, one per test, under the system's temporary directory.
public enum TemporaryDirectory {
    /// Makes a new empty directory `<prefix>-<UUID>` and hands its removal to `removal`.
    ///
    /// A test passes its `addTeardownBlock`, so that the directory is removed when the
    /// test ends, passed or failed, without a `tearDown` of its own:
    ///
    ///     directory = try TemporaryDirectory.make("openrealm-fanout", removedBy: addTeardownBlock)
    ///
    /// (This module does not link XCTest: the command line tools use it too.)
    ///
    /// - Throws: the file manager's error when the directory cannot be made.
    public static func make(_ prefix: String, removedBy removal: (@escaping @Sendable () -> Void) -> Void) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        removal { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
