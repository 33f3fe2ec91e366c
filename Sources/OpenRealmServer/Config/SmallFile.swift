import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a small file — a configuration, a key — with the OS reason in the error
/// ("Permission denied", "Is a directory"), which Foundation's readers drop.
enum SmallFile {
    /// The file's bytes.
    ///
    /// - Throws: ``ServerError`` "cannot read <what> '<path>': <reason>", or one saying
    ///   the file is larger than `limit` bytes.
    static func read(_ url: URL, what: String, limit: Int = 65_536) throws -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ServerError("cannot read \(what) '\(url.path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ServerError("cannot read \(what) '\(url.path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { return data }
            data.append(contentsOf: buffer[0..<n])
            guard data.count <= limit else { throw ServerError("\(what) '\(url.path)' is larger than \(limit) bytes") }
        }
    }
}
