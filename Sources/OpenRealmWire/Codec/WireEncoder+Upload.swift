/// Upload messages from changesets encoded beforehand.
///
/// A client sizes each changeset before it batches an upload (``WireChangeset/encoded(limits:)``,
/// for progress and for the batch bound); with ``encodeUpload(session:changesets:)`` those
/// bytes become the message as they are, instead of every instruction being encoded a
/// second time. The frame is byte for byte what ``encode(_:)`` makes of the same
/// ``WireUpload``.
extension WireEncoder {
    /// One changeset of an upload, its instructions already encoded.
    public struct EncodedUploadChangeset: Sendable {
        /// The local version of the commit.
        public var clientVersion: UInt64
        /// The last server version the client had integrated when it made the changeset.
        public var lastIntegratedServerVersion: UInt64
        /// The client's hybrid logical clock reading for the changeset.
        public var timestamp: WireHybridTimestamp
        /// ``WireChangeset/encoded(limits:)`` of its instructions.
        public var instructions: [UInt8]

        /// An encoded upload changeset.
        public init(clientVersion: UInt64, lastIntegratedServerVersion: UInt64, timestamp: WireHybridTimestamp,
                    instructions: [UInt8]) {
            self.clientVersion = clientVersion
            self.lastIntegratedServerVersion = lastIntegratedServerVersion
            self.timestamp = timestamp
            self.instructions = instructions
        }
    }

    /// Encodes an upload of `changesets` for `session` as one frame.
    ///
    /// - Throws: ``WireError`` — `badMessage` for session 0 or a changeset whose
    ///   instruction bytes are empty (an encoding always holds at least its count);
    ///   `unsupportedVersion` and `limitsExceeded` as ``encode(_:)``.
    public func encodeUpload(session: UInt64, changesets: [EncodedUploadChangeset]) throws(WireError) -> [UInt8] {
        guard WireProtocol.supportedVersions.contains(version) else {
            throw WireError(.unsupportedVersion, field: "header.version", "this build cannot write protocol version \(version)")
        }
        guard session != 0 else {
            throw WireError(.badMessage, field: "session", "0 is reserved for connection-level errors").within("upload")
        }
        var writer = WireWriter(limits: limits, reserving: WireProtocol.headerSize + 16
                                + changesets.reduce(0) { $0 + $1.instructions.count + 24 })
        writer.bytes.append(contentsOf: repeatElement(0, count: WireProtocol.headerSize))
        writer.varint(session)
        writer.varint(UInt64(changesets.count))
        for (i, changeset) in changesets.enumerated() {
            guard !changeset.instructions.isEmpty else {
                throw WireError(.badMessage, field: "changesets[\(i)].instructions", "no bytes: an encoding holds at least its count")
                    .within("upload")
            }
            writer.varint(changeset.clientVersion)
            writer.varint(changeset.lastIntegratedServerVersion)
            writer.varint(changeset.timestamp.milliseconds)
            writer.varint(UInt64(changeset.timestamp.counter))
            writer.bytes.append(contentsOf: changeset.instructions)
        }
        return try frame(writer.bytes, type: .upload)
    }
}
