import Foundation
import OpenRealmWire
import OpenRealmTestSupport

/// The classes of an `abuse` run's app, declared by its setup client (the server runs in
/// development mode, so the schema comes from clients): the ordinary clients' notes and
/// the large objects the non-reading clients subscribe to.
enum AbuseSchema {
    /// What the ordinary clients write and subscribe to (each to its own).
    static let noteClass = "AbuseNote"
    /// Large objects (``blobBytes`` of text each) for the non-reading clients.
    static let blobClass = "AbuseBlob"
    /// How many blobs the setup client writes.
    static let blobCount = 16
    /// The text of each blob: 256 KiB of random letters (zstd shrinks it less than twofold).
    static let blobBytes = 256 << 10

    static let declarations: [WireInstruction] = [
        .addClass(WireClassSchema(name: noteClass, primaryKey: WirePrimaryKeySchema(name: "_id", type: .string))),
        .addProperty(className: noteClass, property: WirePropertySchema(name: "client", type: .int)),
        .addProperty(className: noteClass, property: WirePropertySchema(name: "text", type: .string)),
        .addClass(WireClassSchema(name: blobClass, primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addProperty(className: blobClass, property: WirePropertySchema(name: "data", type: .string)),
    ]

    /// The blobs, as created objects.
    static func blobs() -> [WireInstruction] {
        var random = SplitMix64(seed: 0xB10B)
        return (0..<blobCount).map { index in
            let text = String(decoding: (0..<blobBytes).map { _ in UInt8(97 + random.next() % 26) }, as: UTF8.self)
            return .createObject(className: blobClass, primaryKey: .int(Int64(index)), values: [WirePropertyValue("data", .string(text))])
        }
    }

    /// An upload of one changeset for session 1.
    static func upload(clientVersion: UInt64, _ instructions: [WireInstruction]) -> WireMessage {
        .upload(WireUpload(session: 1, changesets: [WireUploadChangeset(
            clientVersion: clientVersion, lastIntegratedServerVersion: 0,
            timestamp: WireHybridTimestamp(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000)), instructions: instructions)]))
    }

    /// Reads until `done` holds for a message; an error message fails the setup.
    private static func wait(_ socket: RawWebSocket, deadline: Date, _ done: (WireMessage) -> Bool) throws {
        try socket.waitFor(deadline: deadline) { message -> Bool? in
            if case .error(let error) = message { throw ChaosFailure(.server, "the setup was refused: \(error.code) \(error.message)") }
            return done(message) ? true : nil
        }
    }

    /// Declares the schema and writes the blobs over one connection, waiting for the
    /// server's acknowledgement.
    ///
    /// - Throws: ``ChaosFailure`` `server` when the server refuses or does not answer.
    static func setUp(port: Int, appId: String, token: String) throws {
        let deadline = Date().addingTimeInterval(60)
        do {
            let socket = try RawWebSocket(port: port, path: "/api/client/v2.0/app/\(appId)/realm-sync", timeout: 30)
            defer { socket.close() }
            try socket.send(.bind(WireBind(session: 1, appId: appId, accessToken: token)), deadline: deadline)
            // The schema, then a subscription to the blobs (a write must stay in the
            // writer's view), then the blobs.
            try socket.send(upload(clientVersion: 1, declarations), deadline: deadline)
            try wait(socket, deadline: deadline) { if case .download(let d) = $0 { d.progress.lastIntegratedClientVersion >= 1 } else { false } }
            try socket.send(.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: blobClass, query: "TRUEPREDICATE")])),
                            deadline: deadline)
            try wait(socket, deadline: deadline) { if case .download(let d) = $0 { d.queryVersion == 1 && d.bootstrap == .lastBatch } else { false } }
            try socket.send(upload(clientVersion: 2, blobs()), deadline: deadline)
            try wait(socket, deadline: deadline) { if case .download(let d) = $0 { d.progress.lastIntegratedClientVersion >= 2 } else { false } }
        } catch let failure as ChaosFailure {
            throw failure
        } catch {
            throw ChaosFailure(.server, "declaring the schema and writing the blobs failed: \(error)")
        }
    }
}
