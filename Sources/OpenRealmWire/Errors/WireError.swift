/// Why bytes could not be decoded into a message, or a message could not be encoded.
///
/// The ``code`` is the ``SyncErrorCode`` a peer sends back before closing the
/// connection (``WireErrorMessage/init(_:session:)`` builds that message). The
/// ``message`` names the bad field, with its path inside the message, and its byte
/// offset:
///
/// ```text
/// badMessage: upload.changesets[2].instructions[7].value: unknown value tag 42 (body offset 1183)
/// ```
///
/// Header fields are named `header.magic`, `header.version`, `header.type`,
/// `header.flags` and `header.length`; their offsets count from the frame's first byte.
/// Body fields are named from the message type; their offsets count from the body's
/// first byte, after decompression.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure, as sent to the peer.
    public let code: SyncErrorCode
    /// The path of the bad field (`"download.changesets[0].serverVersion"`), or empty
    /// when the failure is not about one field.
    public let field: String
    /// What is wrong with the field, without the field name or offset.
    public let reason: String
    /// The byte offset of the bad field (see the type's documentation for the origin),
    /// when known.
    public let offset: Int?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: the class of failure.
    ///   - field: the path of the bad field, or empty.
    ///   - reason: what is wrong, without the field name.
    ///   - offset: the byte offset of the field, when known.
    public init(_ code: SyncErrorCode, field: String = "", _ reason: String, offset: Int? = nil) {
        self.code = code
        self.field = field
        self.reason = reason
        self.offset = offset
    }

    /// The whole message: code, field, reason and offset.
    public var message: String {
        var text = "\(code): "
        if !field.isEmpty { text += "\(field): " }
        text += reason
        if let offset {
            text += field.hasPrefix("header.") ? " (frame offset \(offset))" : " (body offset \(offset))"
        }
        return text
    }

    public var description: String { message }

    /// The same error with `component` prepended to its field path: decoders of an
    /// enclosing structure add their own name on the way out.
    func within(_ component: String) -> WireError {
        let path: String
        if field.isEmpty {
            path = component
        } else if field.hasPrefix("[") {
            path = component + field
        } else {
            path = component + "." + field
        }
        return WireError(code, field: path, reason, offset: offset)
    }
}
