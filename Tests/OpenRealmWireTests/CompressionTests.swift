import XCTest
@testable import OpenRealmWire
import OpenRealmTestSupport

/// zstd bodies: when the encoder compresses, and what the decoder accepts.
final class CompressionTests: XCTestCase {
    /// An upload of `count` similar creates: compresses well.
    private func bigUpload(_ count: Int) -> WireMessage {
        .upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: (0..<count).map { i in
                                    .createObject(className: "Task", primaryKey: .int(Int64(i)),
                                                  values: [WirePropertyValue("title", .string("task number \(i)")),
                                                           WirePropertyValue("done", .bool(i % 2 == 0))])
                                }),
        ]))
    }

    private func bodyLength(_ frame: [UInt8]) -> Int {
        (0..<4).reduce(0) { $0 | Int(frame[8 + $1]) << (8 * $1) }
    }

    func testLargeBodiesAreCompressedAndRoundTrip() throws {
        let message = bigUpload(5_000)
        let frame = try WireEncoder().encode(message)
        XCTAssertEqual(frame[7], 0x01, "compressed flag")
        XCTAssertEqual(bodyLength(frame), frame.count - 12)
        var plain = WireLimits()
        plain.compressionThreshold = .max
        let uncompressed = try WireEncoder(limits: plain).encode(message)
        XCTAssertEqual(uncompressed[7], 0, "compression off")
        XCTAssertLessThan(frame.count * 3, uncompressed.count, "a repetitive changeset shrinks at least threefold")
        XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message)
        XCTAssertEqual(try WireFrameDecoder.decode(frame: uncompressed), message)
    }

    /// A frame holds little more memory than its size, compressed or not: a sender that
    /// bounds its queue by frame sizes must not hold the writer's growth room, or the
    /// uncompressed body behind a compressed frame, beside them.
    func testAFrameHoldsNoMoreThanItsSize() throws {
        var plain = WireLimits()
        plain.compressionThreshold = .max
        for (message, limits) in [(bigUpload(100_000), WireLimits()), (bigUpload(100_000), plain)] {
            let frame = try WireEncoder(limits: limits).encode(message)
            XCTAssertGreaterThan(frame.count, 64 << 10)
            XCTAssertLessThanOrEqual(frame.capacity, frame.count + max(4096, frame.count / 8),
                                     "a frame of \(frame.count) bytes holds \(frame.capacity) (compressed: \(frame[7]))")
            XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message)
        }
    }

    func testThresholdDecides() throws {
        let message = bigUpload(50)
        let size = try WireEncoder(limits: WireLimits(compressionThreshold: .max)).encode(message).count - 12
        XCTAssertEqual(try WireEncoder(limits: WireLimits(compressionThreshold: size + 1)).encode(message)[7], 0)
        XCTAssertEqual(try WireEncoder(limits: WireLimits(compressionThreshold: size)).encode(message)[7], 1)
        XCTAssertGreaterThan(size, 0)
        XCTAssertLessThan(size, 16 << 10)
        XCTAssertEqual(try WireEncoder().encode(message)[7], 0, "under the default threshold")
    }

    func testIncompressibleBodiesTravelPlain() throws {
        var rng = SplitMix64(seed: 3)
        let noise = (0..<40_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let message = WireMessage.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: [.set(object: Fixtures.task, property: "blob", value: .binary(noise))]),
        ]))
        let frame = try WireEncoder().encode(message)
        XCTAssertEqual(frame[7], 0)
        XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message)
    }

    func testCompressedFramesStreamInPieces() throws {
        let messages = [bigUpload(2_000), .mark(WireMark(session: 1, requestId: 1)), bigUpload(3_000)]
        let bytes = try messages.flatMap { try WireEncoder().encode($0) }
        for chunk in [1, 7, 97, 4_096, 100_000] {
            var decoder = WireFrameDecoder()
            var out: [WireMessage] = []
            var i = 0
            while i < bytes.count {
                out += try decoder.feed(bytes[i..<min(bytes.count, i + chunk)])
                i += chunk
            }
            XCTAssertEqual(out, messages, "chunks of \(chunk)")
        }
    }

    /// A frame whose body is `body`, flagged compressed.
    private func compressedFrame(_ body: [UInt8], type: WireMessageType = .ping) -> [UInt8] {
        let n = UInt32(body.count)
        return WireProtocol.magic + [1, 0, type.rawValue, 1,
                                     UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8),
                                     UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24)] + body
    }

    private let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// A zstd frame of one raw block holding `content`, declaring `declared` as its size
    /// (8-byte field) or no size at all.
    private func rawZstdFrame(_ content: [UInt8], declared: UInt64?) -> [UInt8] {
        var frame = zstdMagic
        if let declared {
            frame.append(0xE0)  // 8-byte content size, single segment
            for i in 0..<8 { frame.append(UInt8(truncatingIfNeeded: declared >> UInt64(8 * i))) }
        } else {
            frame += [0x00, 0x00]  // no content size; window descriptor: 1 KiB
        }
        let header = UInt32(content.count) << 3 | 1  // last block, raw
        frame += [UInt8(truncatingIfNeeded: header), UInt8(truncatingIfNeeded: header >> 8), UInt8(truncatingIfNeeded: header >> 16)]
        return frame + content
    }

    private func assertRefused(_ frame: [UInt8], _ code: SyncErrorCode, _ reason: String, limits: WireLimits = WireLimits(),
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try WireFrameDecoder.decode(frame: frame, limits: limits), file: file, line: line) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            XCTAssertTrue(error.reason.contains(reason), error.message, file: file, line: line)
        }
    }

    func testHandMadeRawZstdFrameDecodes() throws {
        // The hand-made frames below are real zstd: with a correct size this one decodes.
        let ping: [UInt8] = [5, 6]
        XCTAssertEqual(try WireFrameDecoder.decode(frame: compressedFrame(rawZstdFrame(ping, declared: 2))), .ping(WirePing(timestamp: 5, roundTripTime: 6)))
    }

    func testBadCompressedBodiesAreRefused() throws {
        assertRefused(compressedFrame([]), .badCompression, "must not be empty")
        assertRefused(compressedFrame([1, 2, 3, 4, 5, 6, 7, 8]), .badCompression, "not a zstd frame")
        assertRefused(compressedFrame(zstdMagic), .badCompression, "not a zstd frame")
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: nil)), .badCompression, "does not declare its content size")
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: 0)), .badCompression, "must not be empty")
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: 3)), .badCompression, "zstd")
        assertRefused(compressedFrame(rawZstdFrame([5, 6, 7], declared: 2)), .badCompression, "zstd")
        // Two frames: the second one's bytes do not fit in the size the first declares.
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: 2) + rawZstdFrame([1], declared: 1)), .badCompression, "zstd")
        // Valid zstd, but the content is not a valid ping body.
        assertRefused(compressedFrame(rawZstdFrame([0x80], declared: 1)), .badMessage, "truncated varint")
    }

    func testDeclaredContentSizeIsCheckedBeforeAllocating() throws {
        // A terabyte declared in a 20-byte body: refused without allocating it.
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: 1 << 40)), .limitsExceeded, "over the limit of 16777216")
        assertRefused(compressedFrame(rawZstdFrame([5, 6], declared: UInt64.max - 2)), .limitsExceeded, "over the limit")
        // A real bomb: 2,000 creates compress below a 40 kB limit but expand above it.
        let frame = try WireEncoder().encode(bigUpload(2_000))
        var small = WireLimits()
        small.maxMessageSize = 40_000
        XCTAssertLessThan(frame.count, small.maxMessageSize)
        assertRefused(frame, .limitsExceeded, "uncompressed, over the limit of 40000", limits: small)
    }

    /// A compressed `ping` frame whose body is `size` zero bytes (a varint 0 and padding
    /// the decoder never reaches) compressed by zstd itself: a real bomb.
    private func zeroBomb(_ size: Int) -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: size)
        let compressed = WireCompression.compress([0] + zeros, range: 1..<(size + 1), level: 1)!
        return compressedFrame(compressed)
    }

    func testABodyExpandingBeyondTheRatioIsRefusedBeforeDecompressing() throws {
        // 16 MiB of zeros in a few hundred bytes: within the size limit, far beyond the ratio.
        let bomb = zeroBomb(16 << 20)
        XCTAssertLessThan(bomb.count, 4_096)
        assertRefused(bomb, .limitsExceeded, "more than 256 times their size (the compression ratio limit)")
        // The same frame passes once the ratio allows it (the check is the ratio's alone),
        // and is then refused for what it is, not for its size.
        var lax = WireLimits()
        lax.maxCompressionRatio = 1 << 30
        assertRefused(bomb, .badMessage, "unexpected bytes", limits: lax)
        // At exactly the ratio a body is accepted: a raw block of 2 bytes declaring 2.
        var tight = WireLimits()
        tight.maxCompressionRatio = 1
        XCTAssertEqual(try WireFrameDecoder.decode(frame: compressedFrame(rawZstdFrame([5, 6], declared: 2)), limits: tight),
                       .ping(WirePing(timestamp: 5, roundTripTime: 6)))
    }

    func testTheEncoderSendsPlainWhatWouldExceedTheRatio() throws {
        // 200 kB of one repeated title compresses thousands of times: it must travel plain.
        let message = WireMessage.upload(WireUpload(session: 1, changesets: [
            WireUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1),
                                instructions: [.set(object: Fixtures.task, property: "title", value: .string(String(repeating: "a", count: 200_000)))]),
        ]))
        let frame = try WireEncoder().encode(message)
        XCTAssertEqual(frame[7], 0, "sent uncompressed")
        XCTAssertEqual(try WireFrameDecoder.decode(frame: frame), message)
        var lax = WireLimits()
        lax.maxCompressionRatio = 1 << 30
        let compressed = try WireEncoder(limits: lax).encode(message)
        XCTAssertEqual(compressed[7], 1, "compressed when the ratio allows it")
        XCTAssertGreaterThan((frame.count - 12) / (compressed.count - 12), 256)
        assertRefused(compressed, .limitsExceeded, "compression ratio limit")
    }

    func testTheDecoderReportsTheDecodedBodySize() throws {
        let message = bigUpload(5_000)
        let plainSize = try WireEncoder(limits: WireLimits(compressionThreshold: .max)).encode(message).count - 12
        var decoder = WireFrameDecoder()
        XCTAssertEqual(decoder.decodedBodySize, 0)
        let frame = try WireEncoder().encode(message)
        XCTAssertEqual(frame[7], 1)
        XCTAssertEqual(try decoder.feed(frame), [message])
        XCTAssertEqual(decoder.decodedBodySize, plainSize, "the decompressed size, not the \(frame.count - 12) bytes on the wire")
        _ = try decoder.feed(try WireEncoder().encode(.mark(WireMark(session: 1, requestId: 1))))
        XCTAssertEqual(decoder.decodedBodySize, try WireEncoder().encode(.mark(WireMark(session: 1, requestId: 1))).count - 12)
    }
}
