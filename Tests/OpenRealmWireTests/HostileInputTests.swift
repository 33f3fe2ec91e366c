import XCTest
@testable import OpenRealmWire
import OpenRealmTestSupport

/// Bytes from a peer that is broken or malicious: every one must end in a WireError or
/// a valid message, never a crash, a hang, or an allocation beyond the limits.
final class HostileInputTests: XCTestCase {
    private let encoder = WireEncoder()

    /// The fixtures, random messages and a compressed one, as frames.
    private func sampleFrames() throws -> [[UInt8]] {
        var generator = MessageGenerator(seed: 0xF00D)
        var frames = try Fixtures.messages.map { try encoder.encode($0) }
        frames += try (0..<200).map { _ in try encoder.encode(generator.message()) }
        let big = WireMessage.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: (0..<4_000).map { .createObject(className: "T", primaryKey: .int(Int64($0)), values: []) }),
        ]))
        let compressed = try encoder.encode(big)
        XCTAssertEqual(compressed[7], 1)
        frames.append(compressed)
        return frames
    }

    /// Decodes `bytes` as one frame: a WireError, or a message that re-encodes to a frame
    /// that decodes to the same message.
    private func decodeOrRefuse(_ bytes: [UInt8], limits: WireLimits = WireLimits(), context: @autoclosure () -> String) {
        do {
            let message = try WireFrameDecoder.decode(frame: bytes, limits: limits)
            do {
                let again = try WireFrameDecoder.decode(frame: WireEncoder(limits: limits).encode(message), limits: limits)
                XCTAssertEqual(again, message, context())
                if bytes[7] == 0 && bytes[4] == 1 && bytes[5] == 0 {
                    // The encoding is canonical: a plain frame that decodes is the encoder's own.
                    // (An error frame of a later version is read leniently, so not there.)
                    var plain = limits
                    plain.compressionThreshold = .max
                    XCTAssertEqual(try WireEncoder(limits: plain).encode(message), bytes, context())
                }
            } catch {
                XCTFail("\(context()): a decoded message does not re-encode: \(error)")
            }
        } catch {
            XCTAssertFalse(error.message.isEmpty)
        }
    }

    func testTruncatedFramesAtEveryLength() throws {
        for frame in try sampleFrames().prefix(60) {
            for length in 0..<frame.count {
                let prefix = Array(frame.prefix(length))
                // As a whole frame: refused.
                XCTAssertThrowsError(try WireFrameDecoder.decode(frame: prefix))
                // In a stream: waits for more, holding only what it was given.
                var decoder = WireFrameDecoder()
                XCTAssertEqual(try decoder.feed(prefix), [])
                XCTAssertEqual(decoder.bufferedByteCount, length)
                // With the header's length cut to match: the body itself is truncated.
                if length >= 12 {
                    var cut = prefix
                    let n = UInt32(length - 12)
                    for i in 0..<4 { cut[8 + i] = UInt8(truncatingIfNeeded: n >> UInt32(8 * i)) }
                    XCTAssertThrowsError(try WireFrameDecoder.decode(frame: cut), "length \(length)") { error in
                        XCTAssertNotEqual((error as! WireError).code, .unknownMessage)
                    }
                }
            }
        }
    }

    func testRandomByteFlips() throws {
        let seed: UInt64 = 0xB17F_11B5
        var rng = SplitMix64(seed: seed)
        let frames = try sampleFrames()
        var refused = 0
        var accepted = 0
        for round in 0..<20_000 {
            var bytes = frames[Int.random(in: 0..<frames.count, using: &rng)]
            let flips = Int.random(in: 1...4, using: &rng)
            for _ in 0..<flips {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                if Bool.random(using: &rng) {
                    bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                } else {
                    bytes[at] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            do {
                _ = try WireFrameDecoder.decode(frame: bytes)
                accepted += 1
            } catch {
                refused += 1
            }
            decodeOrRefuse(bytes, context: "seed \(seed), round \(round)")
        }
        // Both outcomes happen: flips in a string's bytes keep a valid message.
        XCTAssertGreaterThan(refused, 1_000)
        XCTAssertGreaterThan(accepted, 100)
    }

    func testRandomBytesAsAStream() throws {
        var rng = SplitMix64(seed: 0xABCD)
        for round in 0..<5_000 {
            let count = Int.random(in: 0...64, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if round % 2 == 0 && count >= 12 {
                // A valid header over random bytes, to reach the body decoders.
                let type = UInt8.random(in: 1...10, using: &rng)
                let n = UInt32(count - 12)
                bytes.replaceSubrange(0..<12, with: WireProtocol.magic + [1, 0, type, 0] +
                                      (0..<4).map { UInt8(truncatingIfNeeded: n >> UInt32(8 * $0)) })
            }
            var decoder = WireFrameDecoder()
            do {
                _ = try decoder.feed(bytes)
                XCTAssertLessThanOrEqual(decoder.bufferedByteCount, count)
            } catch {
                XCTAssertFalse(error.message.isEmpty)
            }
            if round % 2 == 0 && count >= 12 { decodeOrRefuse(bytes, context: "round \(round)") }
        }
    }

    /// A plain frame of `type` over `body`.
    private func frame(_ type: WireMessageType, _ body: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
        let n = declaredLength ?? UInt32(body.count)
        return WireProtocol.magic + [1, 0, type.rawValue, 0] + (0..<4).map { UInt8(truncatingIfNeeded: n >> UInt32(8 * $0)) } + body
    }

    private func varint(_ value: UInt64) -> [UInt8] {
        var writer = WireWriter(limits: WireLimits())
        writer.varint(value)
        return writer.bytes
    }

    func testHugeDeclaredFrameLengthsAreRefusedFromTheHeaderAlone() {
        for length: UInt32 in [UInt32.max, 1 << 31, (16 << 20) + 1] {
            var decoder = WireFrameDecoder()
            decoder.append(frame(.upload, [], declaredLength: length))
            XCTAssertThrowsError(try decoder.nextMessage()) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .limitsExceeded)
                XCTAssertEqual(error.field, "header.length")
                XCTAssertEqual(error.offset, 8)
            }
        }
        // At the limit the decoder waits for the body, holding only what arrived.
        var decoder = WireFrameDecoder()
        decoder.append(frame(.upload, [1, 2, 3], declaredLength: 16 << 20))
        XCTAssertNil(try decoder.nextMessage())
        XCTAssertEqual(decoder.bufferedByteCount, 15)
        // A configured limit above what the length field holds is clamped, not trusted.
        var huge = WireLimits()
        huge.maxMessageSize = .max
        XCTAssertEqual(huge.effectiveMaxMessageSize, Int(UInt32.max))
        var open = WireFrameDecoder(limits: huge)
        open.append(frame(.upload, [1], declaredLength: .max))
        XCTAssertNil(try open.nextMessage())
        XCTAssertEqual(open.bufferedByteCount, 13)
    }

    func testHugeDeclaredCountsAndLengthsInBodies() {
        let bigs: [UInt64] = [UInt64.max, 1 << 62, 1 << 40, UInt64(Int.max), 1_000]
        for big in bigs {
            let cases: [(WireMessageType, [UInt8], String)] = [
                (.upload, [1] + varint(big) + [0, 0, 0, 0, 0], "upload.changesets"),
                (.upload, [1, 1, 1, 0, 0, 0] + varint(big) + [0, 0, 0], "upload.changesets[0].instructions"),
                (.download, [1, 0, 0, 0, 0, 0] + varint(big) + [0, 0], "download.changesets"),
                (.query, [1, 1] + varint(big) + [1, 0x41], "query.queries"),
                (.bind, [1] + varint(big) + [0x61], "bind.appId"),
                (.bind, [1, 0] + varint(big), "bind.accessToken"),
                (.error, [0, 101, 0x4] + [0] + [7] + varint(big) + [1, 0x41, 0], "error.compensatingWrite.writes"),
                (.error, [0, 101, 0] + varint(big) + [0x61], "error.message"),
                (.upload, [1, 1, 1, 0, 0, 0, 1, 2, 1, 0x54, 0] + varint(big) + [0, 0x70], "upload.changesets[0].instructions[0].object.path"),
                (.upload, [1, 1, 1, 0, 0, 0, 1, 1, 1, 0x54, 0] + varint(big) + [1, 0x70, 0], "upload.changesets[0].instructions[0].values"),
            ]
            for (type, body, field) in cases {
                XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(type, body)), "\(field) = \(big)") { error in
                    let error = error as! WireError
                    XCTAssertEqual(error.code, .badMessage, error.message)
                    XCTAssertEqual(error.field, field, error.message)
                    XCTAssertTrue(error.reason.contains("cannot fit") || error.reason.contains("runs past the end"), error.message)
                }
            }
        }
    }

    func testDeepPathsAreRefused() throws {
        // A path of 100,000 steps, within the message size limit: refused by depth.
        var body: [UInt8] = [1, 1, 1, 0, 0, 0, 1, 2, 1, 0x54, 0] + varint(100_000)
        for _ in 0..<100_000 { body += [0, 1, 0x70] }
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(.upload, body))) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, .limitsExceeded)
            XCTAssertEqual(error.field, "upload.changesets[0].instructions[0].object.path")
            XCTAssertTrue(error.reason.contains("100000 steps, over the limit of 64"), error.message)
        }
        // And the same path at the limit decodes.
        var ok: [UInt8] = [1, 1, 1, 0, 0, 0, 1, 2, 1, 0x54, 0] + varint(64)
        for _ in 0..<64 { ok += [0, 1, 0x70] }
        guard case .upload(let upload) = try WireFrameDecoder.decode(frame: frame(.upload, ok)),
              case .eraseObject(let path) = upload.changesets[0].instructions[0] else {
            return XCTFail("expected an upload with an erase")
        }
        XCTAssertEqual(path.path.count, 64)
    }

    func testManySmallElementsStayWithinTheMessageLimit() throws {
        // The most instructions one message can carry: each is 5 bytes; the count check
        // lets exactly as many through as the bytes can hold.
        let erase: [UInt8] = [2, 1, 0x54, 0, 0]
        let count = 100_000
        var body: [UInt8] = [1, 1, 1, 0, 0, 0] + varint(UInt64(count))
        for _ in 0..<count { body += erase }
        guard case .upload(let upload) = try WireFrameDecoder.decode(frame: frame(.upload, body)) else {
            return XCTFail("expected an upload")
        }
        XCTAssertEqual(upload.changesets[0].instructions.count, count)
        body[6 ..< 6 + varint(UInt64(count)).count] = ArraySlice(varint(UInt64(count + 1)))
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(.upload, body)))
    }

    func testBufferedBytesNeverExceedOneFrameWhenDrained() throws {
        var limits = WireLimits()
        limits.maxMessageSize = 4_096
        var generator = MessageGenerator(seed: 99)
        var messages: [WireMessage] = []
        var bytes: [UInt8] = []
        while messages.count < 300 {
            let message = generator.message()
            guard let frame = try? WireEncoder(limits: limits).encode(message) else { continue }
            messages.append(message)
            bytes += frame
        }
        var decoder = WireFrameDecoder(limits: limits)
        var out: [WireMessage] = []
        var rng = SplitMix64(seed: 100)
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + Int.random(in: 1...64, using: &rng))
            out += try decoder.feed(bytes[i..<end])
            XCTAssertLessThanOrEqual(decoder.bufferedByteCount, 12 + limits.maxMessageSize)
            i = end
        }
        XCTAssertEqual(out, messages)
    }

    func testUnknownMessageTypesAndVersionsAreTyped() {
        for type in [0, 11, 12, 100, 255] as [UInt8] {
            let bytes = WireProtocol.magic + [1, 0, type, 0, 0, 0, 0, 0]
            XCTAssertThrowsError(try WireFrameDecoder.decode(frame: bytes)) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .unknownMessage)
                XCTAssertTrue(error.message.contains("unknown message type \(type)"), error.message)
            }
        }
    }

    func testErrorCodesOutsideTheEnumAreRefused() {
        for code: UInt64 in [0, 99, 114, 199, 209, 65_535, 65_536 + 103, UInt64.max] {
            let body = [0] + varint(code) + [0, 0]
            XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame(.error, body))) { error in
                let error = error as! WireError
                XCTAssertEqual(error.field, "error.code", error.message)
                XCTAssertTrue(error.reason.contains("unknown error code \(code)"), error.message)
            }
        }
    }
}
