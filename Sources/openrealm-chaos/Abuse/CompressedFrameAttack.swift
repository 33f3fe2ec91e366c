import Foundation
import OpenRealmWire
import OpenRealmTestSupport

/// Frames whose compressed body declares far more than it carries, each on a new
/// connection after a bind:
///
/// - **bombs**: an upload of 15 MiB of one letter in a few kilobytes, a ratio far past
///   ``WireLimits/maxCompressionRatio`` (only an encoder that ignores the bound makes
///   it); the server must refuse it from the declared size, before decompressing;
/// - **large queries**: a query of 15 MiB of RQL text compressed within the ratio, so the
///   server decodes all of it (and then refuses the query for its size): what decoding
///   may legally cost, charged to the connection's inbound queue.
///
/// Outcomes: the first error's code (`refused: limitsExceeded`), `closed without an
/// error`, `no answer`; a connection refused at the upgrade counts as `upgrade refused`.
struct CompressedFrameAttack: Attack {
    enum Kind: Sendable { case bomb, largeQuery }

    let kind: Kind
    /// The most frames sent.
    let limit: Int
    /// Frames per second at most.
    let perSecond: Double
    /// The frame every attempt sends (made before the attacks start: a 15 MiB body
    /// takes a moment to build and compress).
    private let frame: [UInt8]

    init(kind: Kind, limit: Int, perSecond: Double) throws {
        self.kind = kind
        self.limit = limit
        self.perSecond = perSecond
        frame = try kind == .bomb ? Self.bomb() : Self.largeQuery()
    }

    var name: String { kind == .bomb ? "compressed bombs" : "large compressed queries" }

    func run(against target: AbuseTarget) {
        var sent = 0
        while target.isRunning && sent < limit {
            let started = Date()
            sent += 1
            let (outcome, detail) = attempt(frame, target: target)
            target.tally.count(name, outcome, detail: detail)
            target.pause(1 / perSecond - Date().timeIntervalSince(started))
        }
    }

    private func attempt(_ frame: [UInt8], target: AbuseTarget) -> (String, String?) {
        let deadline = Date().addingTimeInterval(10)
        let socket: RawWebSocket
        do {
            socket = try RawWebSocket(port: target.port, path: target.syncPath, timeout: 10)
        } catch {
            return ("upgrade refused", "\(error)")
        }
        defer { socket.close() }
        do {
            try socket.send(.bind(WireBind(session: 1, appId: target.appId, accessToken: target.token)), deadline: deadline)
            try socket.send(frame, deadline: deadline)
            let error = try socket.waitFor(deadline: deadline) { message -> WireErrorMessage? in
                if case .error(let error) = message { return error }
                return nil
            }
            return ("refused: \(error.code)", error.message)
        } catch RawWebSocket.Failure.closed {
            return ("closed without an error", nil)
        } catch RawConnection.Failure.closed {
            return ("closed without an error", nil)
        } catch RawConnection.Failure.timedOut(let what) {
            return ("no answer", "\(what) after 10 s")
        } catch {
            return ("failed", "\(error)")
        }
    }

    /// An upload of 15 MiB of one letter, compressed regardless of the ratio bound.
    static func bomb() throws -> [UInt8] {
        var lax = WireLimits()
        lax.maxCompressionRatio = 1 << 30
        let create = WireInstruction.createObject(className: AbuseSchema.blobClass, primaryKey: .int(1_000_000),
                                                  values: [WirePropertyValue("data", .string(String(repeating: "a", count: 15 << 20)))])
        return try WireEncoder(limits: lax).encode(.upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_000),
            instructions: [create])])))
    }

    /// A query of 15 MiB of RQL text that the standard encoder compresses (so within the
    /// ratio bound): blocks of a few random letters and a run of one letter, with the
    /// fewest random letters that keep the ratio within the bound.
    static func largeQuery() throws -> [UInt8] {
        let prefix = Array("text == '".utf8), size = 15 << 20
        for letters in [8, 12, 16, 24, 32, 48, 64, 128] {
            var random = SplitMix64(seed: 0xB0B)
            var text = [UInt8](repeating: UInt8(ascii: "x"), count: size)
            text.replaceSubrange(0..<prefix.count, with: prefix)
            text[size - 1] = UInt8(ascii: "'")
            text.withUnsafeMutableBufferPointer { bytes in
                for block in stride(from: prefix.count, to: size - 1 - letters, by: 4096) {
                    for i in block..<block + letters { bytes[i] = UInt8(97 + random.next() % 26) }
                }
            }
            let frame = try WireEncoder().encode(.query(WireQuery(session: 1, queryVersion: 1, queries: [
                WireClassQuery(className: AbuseSchema.noteClass, query: String(decoding: text, as: UTF8.self)),
            ])))
            if frame[7] & 1 == 1 { return frame }
        }
        throw ChaosFailure(.usage, "no large query compressed within the ratio bound")
    }
}
