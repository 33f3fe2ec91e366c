import Foundation
@testable import OpenRealmWire
import OpenRealmTestSupport

enum Fixtures {
    static let objectId = WireObjectId(bytes: [0x65, 0x1f, 0x2a, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])!
    static let uuid = WireUUID(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!)

    /// One value of every type, with edge cases.
    static let values: [WireValue] = [
        .null,
        .bool(false), .bool(true),
        .int(0), .int(1), .int(-1), .int(Int64.max), .int(Int64.min),
        .float(0), .float(-0.0), .float(3.25), .float(.infinity), .float(.nan), .float(.leastNonzeroMagnitude),
        .double(0), .double(-0.0), .double(-2.5e300), .double(.nan), .double(-.infinity), .double(.pi),
        .string(""), .string("hello"), .string("naïve café ☕️ 🧪"), .string("nul\u{0}inside"),
        .string(String(repeating: "x", count: 300)),
        .binary([]), .binary([0, 1, 2, 255]), .binary(Array(repeating: 0xAB, count: 1000)),
        .timestamp(WireTimestamp(seconds: 0, nanoseconds: 0)),
        .timestamp(WireTimestamp(seconds: 1_700_000_000, nanoseconds: 999_999_999)),
        .timestamp(WireTimestamp(seconds: -5, nanoseconds: -1)),
        .timestamp(WireTimestamp(seconds: 0, nanoseconds: -999_999_999)),
        .timestamp(WireTimestamp(seconds: Int64.min, nanoseconds: 0)),
        .decimal128(WireDecimal128(low: 0, high: 0x3040_0000_0000_0000)),
        .decimal128(WireDecimal128(low: UInt64.max, high: UInt64.max)),
        .objectId(objectId),
        .objectId(WireObjectId(bytes: [UInt8](repeating: 0, count: 12))!),
        .uuid(uuid),
        .link(WireObjectRef(className: "Person", primaryKey: .int(42))),
        .link(WireObjectRef(className: "Dog", primaryKey: .string("rex"))),
        .link(WireObjectRef(className: "Tag", primaryKey: .objectId(objectId))),
        .link(WireObjectRef(className: "Item", primaryKey: .uuid(uuid))),
        .link(WireObjectRef(className: "Opt", primaryKey: .null)),
    ]

    static let primaryKeys: [WirePrimaryKey] = [
        .null, .int(0), .int(-7), .int(Int64.max), .string(""), .string("key"), .objectId(objectId), .uuid(uuid),
    ]

    static let task = WireObjectPath(className: "Task", primaryKey: .int(1))
    static let embedded = WireObjectPath(WireObjectRef(className: "Order", primaryKey: .string("o-1")),
                                         path: [.property("lines"), .index(2), .property("address"),
                                                .property("tags"), .key("home")])

    /// One instruction of every kind.
    static let instructions: [WireInstruction] = [
        .createObject(className: "Task", primaryKey: .int(1),
                      values: [WirePropertyValue("title", .string("Write docs")), WirePropertyValue("done", .bool(false))]),
        .createObject(className: "Empty", primaryKey: .null, values: []),
        .eraseObject(task),
        .eraseObject(embedded),
        .set(object: task, property: "title", value: .string("Ship")),
        .set(object: embedded, property: "city", value: .null),
        .addInteger(object: task, property: "edits", delta: -3),
        .addInteger(object: task, property: "edits", delta: Int64.min),
        .listInsert(object: task, property: "tags", index: 0, value: .string("a")),
        .listSet(object: task, property: "tags", index: UInt64.max, value: .link(WireObjectRef(className: "T", primaryKey: .int(2)))),
        .listErase(object: task, property: "tags", index: 5),
        .listMove(object: task, property: "tags", from: 3, to: 0),
        .clearCollection(object: embedded, property: "tags"),
        .setInsert(object: task, property: "labels", value: .uuid(uuid)),
        .setErase(object: task, property: "labels", value: .double(1.5)),
        .dictionarySet(object: task, property: "meta", key: "", value: .binary([1, 2])),
        .dictionarySet(object: task, property: "meta", key: "k", value: .timestamp(WireTimestamp(seconds: 10, nanoseconds: 5))),
        .dictionaryErase(object: task, property: "meta", key: "k"),
        .createEmbeddedObject(object: task, property: "address", position: .single,
                              values: [WirePropertyValue("city", .string("Oslo"))]),
        .createEmbeddedObject(object: embedded, property: "lines", position: .listIndex(4), values: []),
        .createEmbeddedObject(object: task, property: "places", position: .dictionaryKey("home"),
                              values: [WirePropertyValue("n", .int(1))]),
        .addClass(WireClassSchema(name: "Task", kind: .topLevel,
                                  primaryKey: WirePrimaryKeySchema(name: "_id", type: .objectId))),
        .addClass(WireClassSchema(name: "Event", kind: .asymmetric,
                                  primaryKey: WirePrimaryKeySchema(name: "_id", type: .string, isOptional: true))),
        .addClass(WireClassSchema(name: "Address", kind: .embedded, primaryKey: nil)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "title", type: .string, isIndexed: true)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "owner", type: .link, isOptional: true, linkTarget: "Person")),
        .addProperty(className: "Task", property: WirePropertySchema(name: "tags", type: .string, collection: .list)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "labels", type: .uuid, collection: .set, isOptional: true)),
        .addProperty(className: "Task", property: WirePropertySchema(name: "meta", type: .mixed, collection: .dictionary)),
    ]

    /// One message of every type, with every optional field both present and absent.
    static let messages: [WireMessage] = [
        .bind(WireBind(session: 1, appId: "app-1", accessToken: "eyJhbGciOi.token.sig")),
        .bind(WireBind(session: UInt64.max, appId: "", accessToken: "",
                       fileIdentity: WireFileIdentity(ident: 77, salt: 0xDEAD_BEEF_CAFE_F00D),
                       lastIntegratedServerVersion: 1234, syncMode: .partition(.string("team-7")))),
        .bind(WireBind(session: 2, appId: "a", accessToken: "t", syncMode: .partition(.null))),
        .bind(WireBind(session: 3, appId: "a", accessToken: "t", syncMode: .partition(.objectId(objectId)))),
        .ident(WireIdent(session: 1, fileIdentity: WireFileIdentity(ident: 1, salt: 0), serverVersion: 0, lastIntegratedClientVersion: 0)),
        .ident(WireIdent(session: 9, fileIdentity: WireFileIdentity(ident: UInt64.max, salt: UInt64.max),
                         serverVersion: UInt64.max, lastIntegratedClientVersion: 99)),
        .query(WireQuery(session: 1, queryVersion: 0, queries: [])),
        .query(WireQuery(session: 1, queryVersion: 3, queries: [
            WireClassQuery(className: "Task", query: "status == 'open' AND owner == 'bob'"),
            WireClassQuery(className: "Person", query: "TRUEPREDICATE"),
        ])),
        .upload(WireUpload(session: 1, changesets: [])),
        .upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 5, lastIntegratedServerVersion: 17,
                                timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_123, counter: 2),
                                instructions: instructions),
            WireUploadChangeset(clientVersion: 6, lastIntegratedServerVersion: 17,
                                timestamp: WireHybridTimestamp(milliseconds: 1_700_000_000_124, counter: UInt32.max),
                                instructions: []),
        ])),
        .download(WireDownload(session: 4, queryVersion: 2,
                               progress: WireDownloadProgress(serverVersion: 20, lastIntegratedClientVersion: 6, downloadableBytes: 1 << 40),
                               bootstrap: .inProgress,
                               changesets: [
                                   WireDownloadChangeset(serverVersion: 19, lastIntegratedClientVersion: 5, originFileIdent: 3,
                                                         originClientVersion: 11, timestamp: WireHybridTimestamp(milliseconds: 9),
                                                         instructions: Array(instructions.prefix(6))),
                                   WireDownloadChangeset(serverVersion: 20, lastIntegratedClientVersion: 6,
                                                         timestamp: WireHybridTimestamp(milliseconds: 10, counter: 1),
                                                         instructions: []),
                               ])),
        .download(WireDownload(session: 4, queryVersion: 0,
                               progress: WireDownloadProgress(serverVersion: 0, lastIntegratedClientVersion: 0),
                               bootstrap: .lastBatch, changesets: [])),
        .download(WireDownload(session: 4, queryVersion: 1,
                               progress: WireDownloadProgress(serverVersion: 1, lastIntegratedClientVersion: 0),
                               changesets: [])),
        .mark(WireMark(session: 1, requestId: 0)),
        .mark(WireMark(session: 2, requestId: UInt64.max)),
        .error(WireErrorMessage(session: 0, code: .badMessage, message: "bad", isFatal: true)),
        .error(WireErrorMessage(session: 3, code: .invalidSubscriptionQuery,
                                message: "Task.status is not a queryable field", isFatal: false, queryVersion: 4)),
        .error(WireErrorMessage(session: 0, code: .unsupportedVersion, message: "v9", isFatal: true, supportedVersions: 1...3)),
        .error(WireErrorMessage(session: 5, code: .writeNotAllowed, message: "reverted 2 writes", isFatal: false,
                                compensatingWrite: WireCompensatingWrite(serverVersion: 88, writes: [
                                    WireRejectedWrite(object: WireObjectRef(className: "Task", primaryKey: .int(5)), reason: "outside the subscriptions"),
                                    WireRejectedWrite(object: WireObjectRef(className: "Task", primaryKey: .uuid(uuid)), reason: ""),
                                ]))),
        .error(WireErrorMessage(session: 5, code: .tooManySessions, message: "all at once", isFatal: true, queryVersion: 0,
                                supportedVersions: 1...1, compensatingWrite: WireCompensatingWrite(serverVersion: 0, writes: []))),
        .ping(WirePing(timestamp: 0)),
        .ping(WirePing(timestamp: 123_456_789, roundTripTime: 42)),
        .pong(WirePong(timestamp: UInt64.max)),
        .unbind(WireUnbind(session: 8)),
    ]
}

/// Random well-formed messages, for round trips and as the base of byte flips.
struct MessageGenerator {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func u64() -> UInt64 {
        // Mostly small numbers, sometimes huge ones: varints of every length.
        switch int(0...3) {
        case 0: return UInt64(int(0...200))
        case 1: return UInt64.random(in: 0...UInt64(UInt32.max), using: &rng)
        default: return rng.next() >> UInt64(int(0...63))
        }
    }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    mutating func name() -> String { pick(["a", "Task", "_id", "título", "x_\(int(0...99))", "Δ"]) }

    mutating func string() -> String {
        let pieces = ["", "a", "hello world", "ünïcödé", "🙂", "\u{0}", "'quoted'", String(repeating: "z", count: int(0...40))]
        return (0..<int(0...3)).map { _ in pick(pieces) }.joined()
    }

    mutating func primaryKey() -> WirePrimaryKey {
        switch int(0...4) {
        case 0: return .null
        case 1: return .int(Int64(bitPattern: u64()))
        case 2: return .string(string())
        case 3: return .objectId(WireObjectId(bytes: (0..<12).map { _ in UInt8(int(0...255)) })!)
        default: return .uuid(WireUUID(bytes: (0..<16).map { _ in UInt8(int(0...255)) })!)
        }
    }

    mutating func value() -> WireValue {
        switch int(0...11) {
        case 0: return .null
        case 1: return .bool(int(0...1) == 1)
        case 2: return .int(Int64(bitPattern: u64()))
        case 3: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())))
        case 4: return .double(Double(bitPattern: rng.next()))
        case 5: return .string(string())
        case 6: return .binary((0..<int(0...20)).map { _ in UInt8(int(0...255)) })
        case 7:
            let seconds = Int64(int(-1_000_000...1_000_000))
            let nanos = Int32(int(0...999_999_999))
            return .timestamp(WireTimestamp(seconds: seconds, nanoseconds: seconds < 0 ? -nanos : nanos))
        case 8: return .decimal128(WireDecimal128(low: rng.next(), high: rng.next()))
        case 9: return .objectId(WireObjectId(bytes: (0..<12).map { _ in UInt8(int(0...255)) })!)
        case 10: return .uuid(WireUUID(bytes: (0..<16).map { _ in UInt8(int(0...255)) })!)
        default: return .link(WireObjectRef(className: name(), primaryKey: primaryKey()))
        }
    }

    mutating func objectPath() -> WireObjectPath {
        var path: [WirePathElement] = []
        for _ in 0..<int(0...3) {
            path.append(.property(name()))
            switch int(0...2) {
            case 0: path.append(.index(u64()))
            case 1: path.append(.key(string()))
            default: break
            }
        }
        return WireObjectPath(WireObjectRef(className: name(), primaryKey: primaryKey()), path: path)
    }

    mutating func values() -> [WirePropertyValue] {
        (0..<int(0...3)).map { _ in WirePropertyValue(name(), value()) }
    }

    mutating func instruction() -> WireInstruction {
        let o = objectPath()
        let p = name()
        switch int(0...15) {
        case 0: return .createObject(className: name(), primaryKey: primaryKey(), values: values())
        case 1: return .eraseObject(o)
        case 2: return .set(object: o, property: p, value: value())
        case 3: return .addInteger(object: o, property: p, delta: Int64(bitPattern: u64()))
        case 4: return .listInsert(object: o, property: p, index: u64(), value: value())
        case 5: return .listSet(object: o, property: p, index: u64(), value: value())
        case 6: return .listErase(object: o, property: p, index: u64())
        case 7: return .listMove(object: o, property: p, from: u64(), to: u64())
        case 8: return .clearCollection(object: o, property: p)
        case 9: return .setInsert(object: o, property: p, value: value())
        case 10: return .setErase(object: o, property: p, value: value())
        case 11: return .dictionarySet(object: o, property: p, key: string(), value: value())
        case 12: return .dictionaryErase(object: o, property: p, key: string())
        case 13:
            let position: WireEmbeddedPosition = pick([.single, .listIndex(u64()), .dictionaryKey(string())])
            return .createEmbeddedObject(object: o, property: p, position: position, values: values())
        case 14:
            let kind = pick(WireClassKind.allCases)
            let key = kind == .embedded ? nil
                : WirePrimaryKeySchema(name: name(), type: pick([.int, .string, .objectId, .uuid]), isOptional: int(0...1) == 1)
            return .addClass(WireClassSchema(name: name(), kind: kind, primaryKey: key))
        default:
            let type = pick(WirePropertyType.allCases)
            return .addProperty(className: name(), property: WirePropertySchema(
                name: p, type: type, collection: pick(WireCollectionKind.allCases), isOptional: int(0...1) == 1,
                isIndexed: int(0...1) == 1, linkTarget: type == .link ? name() : nil))
        }
    }

    mutating func instructions() -> [WireInstruction] { (0..<int(0...6)).map { _ in instruction() } }

    mutating func stamp() -> WireHybridTimestamp { WireHybridTimestamp(milliseconds: u64(), counter: UInt32(truncatingIfNeeded: u64())) }

    mutating func session() -> UInt64 { max(1, u64()) }

    mutating func message() -> WireMessage {
        switch int(0...9) {
        case 0:
            let identity = int(0...1) == 1 ? WireFileIdentity(ident: max(1, u64()), salt: rng.next()) : nil
            let mode: WireSyncMode = int(0...1) == 1 ? .flexible : .partition(primaryKey())
            return .bind(WireBind(session: session(), appId: string(), accessToken: string(), fileIdentity: identity,
                                  lastIntegratedServerVersion: u64(), syncMode: mode))
        case 1:
            return .ident(WireIdent(session: session(), fileIdentity: WireFileIdentity(ident: max(1, u64()), salt: rng.next()),
                                    serverVersion: u64(), lastIntegratedClientVersion: u64()))
        case 2:
            var seen = Set<String>()
            var queries: [WireClassQuery] = []
            for _ in 0..<int(0...4) {
                let c = name()
                if seen.insert(c).inserted { queries.append(WireClassQuery(className: c, query: string())) }
            }
            return .query(WireQuery(session: session(), queryVersion: u64(), queries: queries))
        case 3:
            return .upload(WireUpload(session: session(), changesets: (0..<int(0...3)).map { _ in
                WireUploadChangeset(clientVersion: u64(), lastIntegratedServerVersion: u64(), timestamp: stamp(), instructions: instructions())
            }))
        case 4:
            return .download(WireDownload(
                session: session(), queryVersion: u64(),
                progress: WireDownloadProgress(serverVersion: u64(), lastIntegratedClientVersion: u64(), downloadableBytes: u64()),
                bootstrap: pick(WireBootstrapState.allCases),
                changesets: (0..<int(0...3)).map { _ in
                    WireDownloadChangeset(serverVersion: u64(), lastIntegratedClientVersion: u64(), originFileIdent: u64(),
                                          originClientVersion: u64(), timestamp: stamp(), instructions: instructions())
                }))
        case 5: return .mark(WireMark(session: session(), requestId: u64()))
        case 6:
            let hasWrite = int(0...1) == 1
            let write = hasWrite ? WireCompensatingWrite(serverVersion: u64(), writes: (0..<int(0...3)).map { _ in
                WireRejectedWrite(object: WireObjectRef(className: name(), primaryKey: primaryKey()), reason: string())
            }) : nil
            let low = UInt16(int(0...5))
            return .error(WireErrorMessage(session: u64(), code: pick(SyncErrorCode.allCases), message: string(),
                                           isFatal: int(0...1) == 1, queryVersion: int(0...1) == 1 ? u64() : nil,
                                           supportedVersions: int(0...1) == 1 ? low...(low + UInt16(int(0...3))) : nil,
                                           compensatingWrite: write))
        case 7: return .ping(WirePing(timestamp: u64(), roundTripTime: u64()))
        case 8: return .pong(WirePong(timestamp: u64()))
        default: return .unbind(WireUnbind(session: session()))
        }
    }
}
