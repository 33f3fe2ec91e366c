import OpenRealmWire

extension FuzzTarget {
    /// A byte stream from a peer through `WireFrameDecoder` (frame headers, message
    /// bodies, zstd-compressed bodies, every instruction and value codec).
    ///
    /// Checks: the stream decoded whole and decoded in chunks of 1 to 7 bytes gives the
    /// same messages and the same error; `decode(frame:)` agrees on a single frame; every
    /// decoded message encodes again, and that encoding decodes and re-encodes to the
    /// same bytes (a message the decoder accepts is one the encoder can send).
    static let wireFrame = FuzzTarget(
        name: "wire-frame",
        summary: "sync protocol frames: whole and chunked decoding agree, decoded messages re-encode stably",
        run: { bytes in
            var whole = WireFrameDecoder()
            whole.append(bytes)
            let (messages, failure) = drain(&whole)

            var chunked = WireFrameDecoder()
            var chunkedMessages: [WireMessage] = []
            var chunkedFailure: WireError?
            var start = 0
            var step = 1
            while start < bytes.count && chunkedFailure == nil {
                let end = min(bytes.count, start + step)
                chunked.append(bytes[start..<end])
                let (more, error) = drain(&chunked)
                chunkedMessages += more
                chunkedFailure = error
                start = end
                step = step % 7 + 1
            }
            guard encodings(messages) == encodings(chunkedMessages), failure?.description == chunkedFailure?.description else {
                fuzzFailure("whole decoding gave \(messages.count) messages and \(failure?.description ?? "no error"); "
                            + "chunked gave \(chunkedMessages.count) and \(chunkedFailure?.description ?? "no error")")
            }
            if failure == nil, messages.count == 1, whole.bufferedByteCount == 0 {
                guard let single = try? WireFrameDecoder.decode(frame: bytes), encodings([single]) == encodings(messages) else {
                    fuzzFailure("decode(frame:) disagrees with the stream decoder on one whole frame")
                }
            }
            for message in messages {
                let first = encode(message)
                let again: WireMessage
                do {
                    again = try WireFrameDecoder.decode(frame: first)
                } catch {
                    fuzzFailure("the re-encoding of a decoded \(message.type) does not decode: \(error)")
                }
                guard encode(again) == first else {
                    fuzzFailure("a decoded \(message.type) re-encodes differently after a second round trip")
                }
            }
        },
        seeds: { WireSamples.frames() }
    )

    /// Every message the decoder completes, and the error that stopped it.
    private static func drain(_ decoder: inout WireFrameDecoder) -> ([WireMessage], WireError?) {
        var messages: [WireMessage] = []
        do {
            while let message = try decoder.nextMessage() { messages.append(message) }
            return (messages, nil)
        } catch {
            return (messages, error)
        }
    }

    /// Messages compared by their encodings (NaN values make `==` useless).
    private static func encodings(_ messages: [WireMessage]) -> [[UInt8]] { messages.map(encode) }

    private static func encode(_ message: WireMessage) -> [UInt8] {
        do {
            return try WireEncoder().encode(message)
        } catch {
            fuzzFailure("a decoded \(message.type) does not encode: \(error)")
        }
    }
}
