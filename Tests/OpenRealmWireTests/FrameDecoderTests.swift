import XCTest
@testable import OpenRealmWire
import OpenRealmTestSupport

/// The streaming decoder: partial frames, several frames per chunk, versions, failure.
final class FrameDecoderTests: XCTestCase {
    private var stream: [UInt8] = []
    private let messages = Fixtures.messages

    override func setUpWithError() throws {
        stream = try messages.flatMap { try WireEncoder().encode($0) }
    }

    func testWholeStreamInOneChunk() throws {
        var decoder = WireFrameDecoder()
        XCTAssertEqual(try decoder.feed(stream), messages)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        XCTAssertEqual(decoder.version, 1)
    }

    func testOneByteAtATime() throws {
        var decoder = WireFrameDecoder()
        var out: [WireMessage] = []
        for byte in stream { out += try decoder.feed([byte]) }
        XCTAssertEqual(out, messages)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testEveryFrameSplitAtEveryByteBoundary() throws {
        for message in messages {
            let frame = try WireEncoder().encode(message)
            for cut in 0...frame.count {
                var decoder = WireFrameDecoder()
                let first = try decoder.feed(frame[..<cut])
                XCTAssertEqual(first, cut == frame.count ? [message] : [], "\(message.type) cut at \(cut)")
                let second = try decoder.feed(frame[cut...])
                XCTAssertEqual(first + second, [message], "\(message.type) cut at \(cut)")
                XCTAssertEqual(decoder.bufferedByteCount, 0)
            }
        }
    }

    func testStreamSplitAtEveryBoundaryIntoThreeChunks() throws {
        // Two cuts anywhere in a stream of three frames: frames complete mid-chunk,
        // several per chunk, and across chunks.
        let three = Array(messages.prefix(3))
        let bytes = try three.flatMap { try WireEncoder().encode($0) }
        for a in stride(from: 0, through: bytes.count, by: 3) {
            for b in stride(from: a, through: bytes.count, by: 5) {
                var decoder = WireFrameDecoder()
                var out = try decoder.feed(bytes[..<a])
                out += try decoder.feed(bytes[a..<b])
                out += try decoder.feed(bytes[b...])
                XCTAssertEqual(out, three, "cuts \(a), \(b)")
            }
        }
    }

    func testRandomChunkingOfALongStream() throws {
        var generator = MessageGenerator(seed: 77)
        let many = (0..<500).map { _ in generator.message() }
        let bytes = try many.flatMap { try WireEncoder().encode($0) }
        var rng = SplitMix64(seed: 78)
        var decoder = WireFrameDecoder()
        var out: [WireMessage] = []
        var i = 0
        while i < bytes.count {
            let n = Int.random(in: 1...700, using: &rng)
            let end = min(bytes.count, i + n)
            decoder.append(bytes[i..<end])
            while let message = try decoder.nextMessage() { out.append(message) }
            i = end
        }
        XCTAssertEqual(out, many)
    }

    func testAppendAndNextMessageReturnMessagesBeforeABadFrame() throws {
        var decoder = WireFrameDecoder()
        let good = try WireEncoder().encode(.ping(WirePing(timestamp: 5)))
        decoder.append(good + [0x00, 0x01, 0x02, 0x03, 1, 0, 8, 0, 0, 0, 0, 0])
        XCTAssertEqual(try decoder.nextMessage(), .ping(WirePing(timestamp: 5)))
        XCTAssertThrowsError(try decoder.nextMessage()) { error in
            XCTAssertEqual((error as! WireError).field, "header.magic")
        }
    }

    func testFailureIsSticky() throws {
        var decoder = WireFrameDecoder()
        let bad: [UInt8] = [0x4F, 0x52, 0x57, 0x50, 1, 0, 200, 0, 0, 0, 0, 0]
        var first: WireError?
        XCTAssertThrowsError(try decoder.feed(bad)) { first = $0 as? WireError }
        XCTAssertEqual(first?.code, .unknownMessage)
        let good = try WireEncoder().encode(.pong(WirePong(timestamp: 1)))
        XCTAssertThrowsError(try decoder.feed(good)) { XCTAssertEqual($0 as? WireError, first) }
        XCTAssertThrowsError(try decoder.nextMessage()) { XCTAssertEqual($0 as? WireError, first) }
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testDecodeFrameWantsExactlyOneFrame() throws {
        let frame = try WireEncoder().encode(.pong(WirePong(timestamp: 9)))
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame + frame)) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, .badMessage)
            XCTAssertTrue(error.reason.contains("\(frame.count) bytes after the frame"), error.message)
        }
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: Array(frame.dropLast()))) { error in
            XCTAssertTrue((error as! WireError).reason.contains("truncated"))
        }
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: [])) { error in
            XCTAssertEqual((error as! WireError).code, .badMessage)
        }
    }

    /// A frame with an arbitrary header over `body`.
    private func frame(version: UInt16 = 1, type: UInt8, flags: UInt8 = 0, body: [UInt8]) -> [UInt8] {
        var bytes = WireProtocol.magic
        bytes += [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8), type, flags]
        let n = UInt32(body.count)
        bytes += [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24)]
        return bytes + body
    }

    func testUnsupportedVersionsAreRefusedAtTheHeader() {
        for version: UInt16 in [0, 2, 0x100, .max] {
            var decoder = WireFrameDecoder()
            // Only the header is there: the version is judged before the body arrives.
            decoder.append(frame(version: version, type: WireMessageType.pong.rawValue, body: [1]).prefix(12))
            XCTAssertThrowsError(try decoder.nextMessage()) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .unsupportedVersion)
                XCTAssertEqual(error.field, "header.version")
                XCTAssertEqual(error.offset, 4)
                XCTAssertTrue(error.reason.contains("protocol version \(version) is not supported"), error.message)
            }
        }
    }

    func testErrorFrameOfALaterVersionIsReadForItsFirstFields() throws {
        // A version-5 peer's error: the version-1 fields, a flag bit and fields version 1
        // does not know (0x10, then 3 bytes).
        var body: [UInt8] = [0, 104, 0x18 | 0x2]        // session 0, unsupportedVersion, fatal | versions | new bit
        body += [4, 0x6E, 0x6F, 0x70, 0x65]             // "nope"
        body += [5, 0, 7, 0]                            // versions 5...7
        body += [0xAA, 0xBB, 0xCC]                      // fields of version 5
        var decoder = WireFrameDecoder()
        let messages = try decoder.feed(frame(version: 5, type: WireMessageType.error.rawValue, body: body))
        XCTAssertEqual(messages, [.error(WireErrorMessage(session: 0, code: .unsupportedVersion, message: "nope",
                                                          isFatal: true, supportedVersions: 5...7))])
        XCTAssertNil(decoder.version, "a foreign error frame does not fix the connection's version")

        // Only error frames get that treatment.
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(version: 5, type: WireMessageType.ping.rawValue, body: [1, 1]))) {
            XCTAssertEqual(($0 as! WireError).code, .unsupportedVersion)
        }
        // And a version-1 error frame is read strictly.
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(version: 1, type: WireMessageType.error.rawValue, body: body))) {
            XCTAssertEqual(($0 as! WireError).field, "error.flags")
        }
    }

    func testHeaderFieldsAreCheckedWithTheirOffsets() {
        let good = frame(type: WireMessageType.pong.rawValue, body: [1])
        var badMagic = good; badMagic[2] = 0x58
        var badType = good; badType[6] = 0
        var badFlags = good; badFlags[7] = 0x02
        let cases: [([UInt8], SyncErrorCode, String, Int)] = [
            (badMagic, .badMessage, "header.magic", 2),
            (badType, .unknownMessage, "header.type", 6),
            (badFlags, .badMessage, "header.flags", 7),
            (Array("GET / HTTP/1.1\r\n".utf8), .badMessage, "header.magic", 0),
        ]
        for (bytes, code, field, offset) in cases {
            XCTAssertThrowsError(try WireFrameDecoder.decode(frame: bytes)) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, code, error.message)
                XCTAssertEqual(error.field, field, error.message)
                XCTAssertEqual(error.offset, offset, error.message)
            }
        }
    }

    func testBodyErrorsNameTheMessageFieldAndBodyOffset() throws {
        // upload, session 1, 1 changeset (v1, v0, clock 0.0), 2 instructions: erase Task[1] and a bad tag.
        var body: [UInt8] = [1, 1, 1, 0, 0, 0, 2]
        body += [2, 4] + Array("Task".utf8) + [2, 2, 0]
        let badAt = body.count
        body += [77, 0, 0, 0, 0, 0]
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(type: WireMessageType.upload.rawValue, body: body))) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, .badMessage)
            XCTAssertEqual(error.field, "upload.changesets[0].instructions[1].tag")
            XCTAssertEqual(error.offset, badAt)
            XCTAssertEqual(error.message, "badMessage: upload.changesets[0].instructions[1].tag: unknown instruction tag 77 (body offset \(badAt))")
        }
    }

    func testSessionZeroIsRefused() {
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(type: WireMessageType.unbind.rawValue, body: [0]))) { error in
            XCTAssertEqual((error as! WireError).field, "unbind.session")
        }
    }

    func testDuplicateClassQueriesAreRefused() {
        let body: [UInt8] = [1, 1, 2, 1, 0x41, 0, 1, 0x41, 0]
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(type: WireMessageType.query.rawValue, body: body))) { error in
            let error = error as! WireError
            XCTAssertEqual(error.field, "query.queries[1].className")
            XCTAssertTrue(error.reason.contains("has a query already"))
        }
    }
}
