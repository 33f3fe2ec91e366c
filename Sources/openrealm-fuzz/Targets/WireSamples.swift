import Foundation
import OpenRealmWire

/// Valid protocol values the wire targets' seeds are encoded from: one instruction of
/// every kind and one message of every type.
enum WireSamples {
    static let objectId = WireObjectId(bytes: [0x65, 0x1F, 0x2A, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])!
    static let uuid = WireUUID(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!)
    static let task = WireObjectPath(className: "Task", primaryKey: .int(1))
    static let nested = WireObjectPath(WireObjectRef(className: "Order", primaryKey: .string("o-1")),
                                       path: [.property("lines"), .index(2), .property("tags"), .key("home")])

    static let instructions: [WireInstruction] = [
        .createObject(className: "Task", primaryKey: .int(1),
                      values: [WirePropertyValue("title", .string("Write docs")), WirePropertyValue("done", .bool(false))]),
        .createObject(className: "Tag", primaryKey: .objectId(objectId), values: [WirePropertyValue("id", .uuid(uuid))]),
        .eraseObject(nested),
        .set(object: task, property: "score", value: .double(2.5)),
        .set(object: task, property: "when", value: .timestamp(WireTimestamp(seconds: 1_700_000_000, nanoseconds: 5))),
        .set(object: task, property: "amount", value: .decimal128(WireDecimal128(low: 15, high: 0x3040_0000_0000_0000))),
        .set(object: task, property: "weight", value: .float(1.5)),
        .set(object: task, property: "owner", value: .link(WireObjectRef(className: "Person", primaryKey: .uuid(uuid)))),
        .addInteger(object: task, property: "edits", delta: -3),
        .listInsert(object: task, property: "tags", index: 0, value: .string("a")),
        .listSet(object: task, property: "tags", index: 1, value: .null),
        .listErase(object: nested, property: "tags", index: 5),
        .listMove(object: task, property: "tags", from: 3, to: 0),
        .clearCollection(object: task, property: "tags"),
        .setInsert(object: task, property: "labels", value: .binary([1, 2, 3])),
        .setErase(object: task, property: "labels", value: .int(-9)),
        .dictionarySet(object: task, property: "meta", key: "k", value: .string("v")),
        .dictionaryErase(object: task, property: "meta", key: "k"),
        .createEmbeddedObject(object: task, property: "address", position: .single, values: [WirePropertyValue("city", .string("Oslo"))]),
        .createEmbeddedObject(object: task, property: "lines", position: .listIndex(4), values: []),
        .createEmbeddedObject(object: task, property: "places", position: .dictionaryKey("home"), values: []),
        .addClass(WireClassSchema(name: "Task", kind: .topLevel, primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
        .addClass(WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "title", type: .string, isIndexed: true)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "owner", type: .link, isOptional: true, linkTarget: "Person")),
        .addProperty(className: "Task", property: WirePropertySchema(name: "meta", type: .mixed, collection: .dictionary)),
    ]

    static let messages: [WireMessage] = [
        .bind(WireBind(session: 1, appId: "app-1", accessToken: "header.payload.signature")),
        .bind(WireBind(session: 2, appId: "a", accessToken: "t", fileIdentity: WireFileIdentity(ident: 77, salt: 9),
                       lastIntegratedServerVersion: 12, syncMode: .partition(.string("team-7")))),
        .ident(WireIdent(session: 1, fileIdentity: WireFileIdentity(ident: 1, salt: 2), serverVersion: 3, lastIntegratedClientVersion: 4)),
        .query(WireQuery(session: 1, queryVersion: 3, queries: [WireClassQuery(className: "Task", query: "status == 'open'")])),
        .upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 5, lastIntegratedServerVersion: 17,
                                timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_123, counter: 2),
                                instructions: instructions),
        ])),
        .download(WireDownload(session: 4, queryVersion: 2,
                               progress: WireDownloadProgress(serverVersion: 20, lastIntegratedClientVersion: 6, downloadableBytes: 100),
                               bootstrap: .inProgress,
                               changesets: [
                                   WireDownloadChangeset(serverVersion: 19, lastIntegratedClientVersion: 5, originFileIdent: 3,
                                                         originClientVersion: 11, timestamp: WireHybridTimestamp(milliseconds: 9),
                                                         instructions: Array(instructions.prefix(8))),
                               ])),
        .mark(WireMark(session: 1, requestId: 7)),
        .error(WireErrorMessage(session: 3, code: .invalidSubscriptionQuery, message: "not queryable", isFatal: false, queryVersion: 4)),
        .error(WireErrorMessage(session: 5, code: .writeNotAllowed, message: "reverted", isFatal: false,
                                compensatingWrite: WireCompensatingWrite(serverVersion: 88, writes: [
                                    WireRejectedWrite(object: WireObjectRef(className: "Task", primaryKey: .int(5)), reason: "outside"),
                                ]))),
        .ping(WirePing(timestamp: 123_456_789, roundTripTime: 42)),
        .pong(WirePong(timestamp: 5)),
        .unbind(WireUnbind(session: 8)),
    ]

    /// The frames of `messages`, one per seed, plus a compressed upload (zstd body) and a
    /// stream of three frames back to back.
    static func frames() -> [(name: String, bytes: [UInt8])] {
        let encoder = WireEncoder()
        var compressing = WireLimits()
        compressing.compressionThreshold = 64
        var seeds: [(name: String, bytes: [UInt8])] = []
        do {
            for (i, message) in messages.enumerated() {
                seeds.append((name: "frame-\(i)-\(message.type)", bytes: try encoder.encode(message)))
            }
            seeds.append((name: "frame-compressed-upload", bytes: try WireEncoder(limits: compressing).encode(messages[4])))
            let stream = try messages.prefix(3).flatMap { try encoder.encode($0) }
            seeds.append((name: "stream-3-frames", bytes: stream))
        } catch {
            fuzzFailure("a sample message does not encode: \(error)")
        }
        return seeds
    }
}
