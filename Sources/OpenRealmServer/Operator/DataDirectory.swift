import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The layout of a data directory and the checks made before a server or an operator
/// command uses one:
///
/// | path | what |
/// |---|---|
/// | `signing.key` | the token signing key (32 bytes, mode 0600), unless given by file or environment |
/// | `apps/<app id>/server.realm` | the store of each app (an ORCore environment, plus its `-lock` file) |
/// | `openrealm.lock` | the ``DataDirectoryLock`` file |
public struct DataDirectory: Sendable {
    /// The directory.
    public let url: URL

    public init(_ url: URL) {
        self.url = url
    }

    /// The directory holding one subdirectory per app.
    public var appsDirectory: URL { url.appendingPathComponent("apps") }

    /// The store file of `appId`.
    public func storePath(appId: String) -> String {
        appsDirectory.appendingPathComponent(appId).appendingPathComponent("server.realm").path
    }

    /// The apps that have a store, sorted by id.
    ///
    /// - Throws: ``ServerError`` when `apps/` exists but cannot be listed.
    public func appIds() throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: appsDirectory.path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { throw ServerError("'\(appsDirectory.path)' is not a directory") }
        guard let dir = opendir(appsDirectory.path) else {
            throw ServerError("cannot list the apps in '\(appsDirectory.path)': \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        var ids: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard AppRegistry.isValidAppId(name), FileManager.default.fileExists(atPath: storePath(appId: name)) else { continue }
            ids.append(name)
        }
        return ids.sorted()
    }

    /// Creates the directory (and its parents) when missing, and checks that it is a
    /// directory the server can write: a file is created in it and removed.
    ///
    /// - Throws: ``ServerError`` naming the path and the OS reason ("Permission
    ///   denied", "Not a directory", "Read-only file system", ...).
    public func prepareForWriting() throws {
        try Self.makeDirectories(url.path)
        let probe = url.appendingPathComponent(".openrealm-write-test-\(getpid())").path
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServerError("the data directory '\(url.path)' is not writable: \(String(cString: strerror(errno)))")
        }
        close(fd)
        unlink(probe)
    }

    /// Checks that the directory exists, for commands that must not create one.
    ///
    /// - Throws: ``ServerError`` when it is missing or not a directory.
    public func requireExisting() throws {
        var st = stat()
        guard stat(url.path, &st) == 0 else {
            throw ServerError("the data directory '\(url.path)' cannot be used: \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ServerError("the data directory '\(url.path)' is not a directory")
        }
    }

    /// `mkdir -p` (each new directory 0700), with the OS reason of the first component
    /// that fails.
    static func makeDirectories(_ path: String, what: String = "the data directory") throws {
        if let (component, reason) = makeDirectories(component: path) {
            let which = component == path ? "" : " ('\(component)')"
            throw ServerError("cannot create \(what) '\(path)'\(which): \(reason)")
        }
    }

    /// Creates `path` and its missing parents; the component that failed and why, or nil.
    private static func makeDirectories(component path: String) -> (String, String)? {
        var st = stat()
        if stat(path, &st) == 0 {
            return (st.st_mode & S_IFMT) == S_IFDIR ? nil : (path, "it is not a directory")
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, let failure = makeDirectories(component: parent) { return failure }
        // Private: the stores hold password hashes, tokens and every user's data.
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { return (path, String(cString: strerror(errno))) }
        return nil
    }
}
