import Foundation
import XCTest
import OpenRealmTestSupport

/// A real reverse proxy for the tests — Caddy or nginx, found on PATH (Debian packages
/// `caddy` and `nginx`) — running the configuration files of `docs/deploy/` that
/// docs/DEPLOY.md shows, terminating TLS on a loopback port with a test certificate and
/// passing requests to an openrealm-server on another loopback port.
///
/// The files are production files; a test changes only what a test must: the site's
/// address (a free loopback port instead of 443 on every address), the certificate (the
/// test's instead of an ACME one), the upstream port, and the process's own paths (pid,
/// logs, Caddy's storage) in its temporary directory. Each replaced text must be in the
/// file, so an edit of the docs that the test no longer matches fails here, loudly.
final class TestProxy {
    enum Kind: String {
        case caddy
        case nginx
    }

    let kind: Kind
    /// The loopback port the proxy serves HTTPS on.
    let port: Int
    let directory: URL
    private let process: Process
    private let logFile: URL

    /// Starts a proxy of `kind` on a free loopback port, in front of the server on
    /// `upstreamPort`, with the TLS certificate `certificate` and key `key`; returns once
    /// it accepts connections.
    ///
    /// - Parameter edit: changes the rendered configuration text further (a test of a
    ///   misconfigured proxy).
    /// - Throws: `XCTSkip` when the proxy is not installed; an error with the proxy's log
    ///   when it does not start.
    init(_ kind: Kind, port: Int, upstreamPort: Int, certificate: URL, key: URL, directory: URL,
         edit: (String) -> String = { $0 }) throws {
        guard let executable = Self.find(kind.rawValue) else {
            throw XCTSkip("the reverse proxy tests need `\(kind.rawValue)` on PATH (Debian package `\(kind.rawValue)`)")
        }
        self.kind = kind
        self.port = port
        self.directory = directory.appendingPathComponent(kind.rawValue)
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        logFile = self.directory.appendingPathComponent("proxy.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)

        let source = try String(contentsOf: Self.deployDirectory.appendingPathComponent(kind == .caddy ? "Caddyfile" : "nginx.conf"),
                                encoding: .utf8)
        process = Process()
        process.executableURL = executable
        switch kind {
        case .caddy:
            let site = try Self.replacing(source, [
                ("sync.example.com {", "https://127.0.0.1:\(port) {\n\tbind 127.0.0.1\n\ttls \(certificate.path) \(key.path)"),
                ("reverse_proxy 127.0.0.1:9090", "reverse_proxy 127.0.0.1:\(upstreamPort)"),
            ])
            // No admin endpoint (a fixed port shared by every Caddy), no HTTP-to-HTTPS
            // redirect listener on port 80, storage in the test's directory.
            let global = "{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n"
                + "\tstorage file_system \(self.directory.appendingPathComponent("data").path)\n}\n\n"
            let file = self.directory.appendingPathComponent("Caddyfile")
            try Data((global + edit(site)).utf8).write(to: file)
            process.arguments = ["run", "--config", file.path, "--adapter", "caddyfile"]
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = self.directory.path
            environment["XDG_DATA_HOME"] = self.directory.appendingPathComponent("data").path
            environment["XDG_CONFIG_HOME"] = self.directory.appendingPathComponent("config").path
            process.environment = environment
        case .nginx:
            let redirectPort = try freeLoopbackPort()
            let site = try Self.replacing(source, [
                ("    listen [::]:80;\n", ""),
                ("    listen [::]:443 ssl;\n", ""),
                ("listen 80;", "listen 127.0.0.1:\(redirectPort);"),
                ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                ("/etc/letsencrypt/live/sync.example.com/fullchain.pem", certificate.path),
                ("/etc/letsencrypt/live/sync.example.com/privkey.pem", key.path),
                ("server 127.0.0.1:9090;", "server 127.0.0.1:\(upstreamPort);"),
            ])
            let siteFile = self.directory.appendingPathComponent("openrealm.conf")
            try Data(edit(site).utf8).write(to: siteFile)
            let dir = self.directory.path
            let main = """
                daemon off;
                worker_processes 1;
                pid \(dir)/nginx.pid;
                error_log \(logFile.path) warn;
                events { worker_connections 128; }
                http {
                    access_log off;
                    client_body_temp_path \(dir)/client_body;
                    proxy_temp_path \(dir)/proxy;
                    fastcgi_temp_path \(dir)/fastcgi;
                    uwsgi_temp_path \(dir)/uwsgi;
                    scgi_temp_path \(dir)/scgi;
                    include \(siteFile.path);
                }

                """
            let mainFile = self.directory.appendingPathComponent("nginx-main.conf")
            try Data(main.utf8).write(to: mainFile)
            process.arguments = ["-c", mainFile.path, "-p", dir, "-e", logFile.path]
        }
        let log = try FileHandle(forWritingTo: logFile)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitUntilListening()
    }

    /// The proxy's base URL, as the app's `baseURL`.
    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// What the proxy wrote to its log.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Stops the proxy (SIGTERM; SIGKILL when it has not ended 10 s later).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            guard process.isRunning else {
                throw TestCertificateError(message: "\(kind.rawValue) exited with status \(process.terminationStatus): \(log)")
            }
            if Self.accepts(port: port) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        throw TestCertificateError(message: "\(kind.rawValue) did not listen on 127.0.0.1:\(port) within 20 s: \(log)")
    }

    /// Whether a TCP connection to the loopback `port` is accepted.
    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// `docs/deploy/` of this checkout.
    static var deployDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/deploy")
    }

    /// `text` with each pair's first string replaced by its second; each must occur.
    static func replacing(_ text: String, _ pairs: [(String, String)]) throws -> String {
        var text = text
        for (old, new) in pairs {
            guard text.contains(old) else {
                throw TestCertificateError(message: "docs/deploy no longer contains '\(old)', which the proxy tests replace")
            }
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// The executable `name` on PATH, or in the sbin directories a non-root PATH may lack.
    private static func find(_ name: String) -> URL? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (path + ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]).map { URL(fileURLWithPath: $0).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
