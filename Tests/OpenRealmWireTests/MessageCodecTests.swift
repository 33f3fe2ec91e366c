import XCTest
@testable import OpenRealmWire

/// Every message through the encoder and back, and the encoder's refusals.
final class MessageCodecTests: XCTestCase {
    func testFixturesCoverEveryMessageTypeAndErrorField() {
        XCTAssertEqual(Set(Fixtures.messages.map(\.type)), Set(WireMessageType.allCases))
    }

    func testEveryMessageRoundTrips() throws {
        let encoder = WireEncoder()
        for message in Fixtures.messages {
            let frame = try encoder.encode(message)
            XCTAssertEqual(Array(frame.prefix(4)), WireProtocol.magic)
            XCTAssertEqual(frame[6], message.type.rawValue)
            XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message, "\(message.type)")
        }
    }

    func testEveryErrorCodeRoundTrips() throws {
        for code in SyncErrorCode.allCases {
            let message = WireMessage.error(WireErrorMessage(session: 0, code: code, message: "\(code)", isFatal: code.isProtocolError))
            XCTAssertEqual(try WireFrameDecoder.decode(frame: WireEncoder().encode(message)), message)
            XCTAssertEqual(code.isProtocolError, code.rawValue < 200)
        }
        XCTAssertEqual(Set(SyncErrorCode.allCases.map(\.description)).count, SyncErrorCode.allCases.count)
    }

    func testRandomMessagesRoundTrip() throws {
        let seed: UInt64 = 0x5EED_0001
        var generator = MessageGenerator(seed: seed)
        let encoder = WireEncoder()
        for i in 0..<3_000 {
            let message = generator.message()
            let frame = try encoder.encode(message)
            XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message, "seed \(seed), message \(i)")
            // One encoding per message.
            XCTAssertEqual(try encoder.encode(WireFrameDecoder.decode(frame: frame)), frame, "seed \(seed), message \(i)")
        }
    }

    func testSessionAccessor() {
        XCTAssertEqual(WireMessage.mark(WireMark(session: 4, requestId: 1)).session, 4)
        XCTAssertNil(WireMessage.ping(WirePing(timestamp: 1)).session)
        XCTAssertEqual(WireMessage.error(WireErrorMessage(session: 0, code: .otherError, message: "", isFatal: true)).session, 0)
    }

    func testEncoderRefusesMalformedMessages() {
        let encoder = WireEncoder()
        let cases: [(WireMessage, SyncErrorCode, String)] = [
            (.bind(WireBind(session: 0, appId: "a", accessToken: "t")), .badMessage, "bind.session"),
            (.mark(WireMark(session: 0, requestId: 1)), .badMessage, "mark.session"),
            (.bind(WireBind(session: 1, appId: "a", accessToken: "t", fileIdentity: WireFileIdentity(ident: 0, salt: 1))),
             .badMessage, "bind.fileIdentity.ident"),
            (.ident(WireIdent(session: 1, fileIdentity: WireFileIdentity(ident: 0, salt: 1), serverVersion: 0, lastIntegratedClientVersion: 0)),
             .badMessage, "ident.fileIdentity.ident"),
            (.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "A", query: "x"),
                                                                     WireClassQuery(className: "A", query: "y")])),
             .badMessage, "query.queries[1].className"),
            (.query(WireQuery(session: 1, queryVersion: 1, queries: [WireClassQuery(className: "", query: "x")])),
             .badMessage, "query.queries[0].className"),
            (.upload(WireUpload(session: 1, changesets: [
                WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 0),
                                    instructions: [.eraseObject(Fixtures.task), .set(object: Fixtures.task, property: "", value: .null)]),
            ])), .badMessage, "upload.changesets[0].instructions[1].property"),
            (.error(WireErrorMessage(session: 1, code: .writeNotAllowed, message: "", isFatal: false,
                                     compensatingWrite: WireCompensatingWrite(serverVersion: 1, writes: [
                                         WireRejectedWrite(object: WireObjectRef(className: "", primaryKey: .null), reason: ""),
                                     ]))), .badMessage, "error.compensatingWrite.writes[0].className"),
        ]
        for (message, code, field) in cases {
            XCTAssertThrowsError(try encoder.encode(message)) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, code, "\(message)")
                XCTAssertEqual(error.field, field, error.message)
            }
        }
        XCTAssertThrowsError(try WireEncoder(version: 2).encode(.pong(WirePong(timestamp: 1)))) { error in
            XCTAssertEqual((error as! WireError).code, .unsupportedVersion)
        }
    }

    func testEncoderEnforcesTheMessageSizeLimit() throws {
        var limits = WireLimits()
        limits.maxMessageSize = 1_000
        let big = WireMessage.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: [.set(object: Fixtures.task, property: "p", value: .binary(Array(repeating: 7, count: 1_000)))]),
        ]))
        XCTAssertThrowsError(try WireEncoder(limits: limits).encode(big)) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, .limitsExceeded)
            XCTAssertTrue(error.message.contains("over the limit of 1000"), error.message)
        }
        XCTAssertNoThrow(try WireEncoder().encode(big))
    }

    func testErrorMessageFromWireError() {
        let failure = WireError(.unsupportedVersion, field: "header.version", "protocol version 9 is not supported", offset: 4)
        let message = WireErrorMessage(failure)
        XCTAssertEqual(message.session, 0)
        XCTAssertEqual(message.code, .unsupportedVersion)
        XCTAssertTrue(message.isFatal)
        XCTAssertEqual(message.supportedVersions, WireProtocol.supportedVersions)
        XCTAssertEqual(message.message, "unsupportedVersion: header.version: protocol version 9 is not supported (frame offset 4)")
        XCTAssertNil(WireErrorMessage(WireError(.badMessage, "x")).supportedVersions)
    }

    func testChangesetEncodingIsTheMessageFieldEncoding() throws {
        // A server may store a changeset's bytes and splice them into a download body.
        let changeset = try WireChangeset(Fixtures.instructions).encoded()
        let download = WireMessage.download(WireDownload(
            session: 1, queryVersion: 0, progress: WireDownloadProgress(serverVersion: 1, lastIntegratedClientVersion: 0),
            changesets: [WireDownloadChangeset(serverVersion: 1, lastIntegratedClientVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                               instructions: Fixtures.instructions)]))
        var limits = WireLimits()
        limits.compressionThreshold = .max
        let frame = try WireEncoder(limits: limits).encode(download)
        XCTAssertEqual(Array(frame.suffix(changeset.count)), changeset)
    }
}
