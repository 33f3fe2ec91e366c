import OpenRealmWire

extension FuzzTarget {
    /// A changeset's bytes (`WireChangeset(decoding:)`, the instruction codec of
    /// `Instructions+Codec.swift`, as a server stores them in its history).
    ///
    /// Checks: a changeset that decodes encodes again, and that encoding decodes and
    /// re-encodes to the same bytes.
    static let wireChangeset = FuzzTarget(
        name: "wire-changeset",
        summary: "sync changesets (instructions): decoded changesets re-encode stably",
        run: { bytes in
            guard let changeset = try? WireChangeset(decoding: bytes) else { return }
            let first: [UInt8]
            do {
                first = try changeset.encoded()
            } catch {
                fuzzFailure("a decoded changeset of \(changeset.instructions.count) instructions does not encode: \(error)")
            }
            do {
                guard try WireChangeset(decoding: first).encoded() == first else {
                    fuzzFailure("a decoded changeset re-encodes differently after a second round trip")
                }
            } catch {
                fuzzFailure("the re-encoding of a decoded changeset does not decode: \(error)")
            }
        },
        seeds: {
            var seeds: [(name: String, bytes: [UInt8])] = []
            do {
                seeds.append((name: "all-instructions", bytes: try WireChangeset(WireSamples.instructions).encoded()))
                for (i, instruction) in WireSamples.instructions.enumerated() {
                    seeds.append((name: "instruction-\(i)", bytes: try WireChangeset([instruction]).encoded()))
                }
            } catch {
                fuzzFailure("a sample instruction does not encode: \(error)")
            }
            return seeds
        }
    )
}
