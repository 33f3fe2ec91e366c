/// Constants of the OpenRealm sync protocol that every peer shares: the frame magic,
/// the protocol versions this build speaks and the size of the frame header.
///
/// `docs/PROTOCOL.md` is the full specification; these values are its section 2.
public enum WireProtocol {
    /// The four bytes every frame starts with: `"ORWP"` (OpenRealm Wire Protocol).
    public static let magic: [UInt8] = [0x4F, 0x52, 0x57, 0x50]

    /// The protocol version this build sends.
    public static let currentVersion: UInt16 = 1

    /// The protocol versions this build decodes. A frame of another version is refused
    /// with ``SyncErrorCode/unsupportedVersion`` (except an `error` frame, whose first
    /// fields keep the same layout in every version; see ``WireFrameDecoder``).
    public static let supportedVersions: ClosedRange<UInt16> = 1...1

    /// The size of the fixed frame header in bytes: magic (4), version (2), message
    /// type (1), flags (1), body length (4).
    public static let headerSize = 12

    /// The frame flag bit saying that the body is one zstd frame.
    static let compressedFlag: UInt8 = 0x01
}
