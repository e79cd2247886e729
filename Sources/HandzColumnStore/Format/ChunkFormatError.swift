/// Why bytes are not a valid chunk, dictionary or manifest. Structural reasons only: a message
/// never quotes what the file holds (event values stay out of errors and logs). The file layer
/// adds the file's name (``ColumnStoreError``).
public enum ChunkFormatError: Error, Equatable, Sendable {
    /// The bytes end before the structure does.
    case truncated
    /// Not a file of this kind (its magic differs).
    case notAChunk
    /// A format version this build does not read.
    case unsupportedVersion(Int)
    /// A checksum does not match: the bytes changed after they were written.
    case checksumMismatch
    /// The structure is inconsistent (the reason names the part, never a value).
    case malformed(String)

    public var reason: String {
        switch self {
        case .truncated: "truncated"
        case .notAChunk: "not a Handz column-store file (wrong magic)"
        case .unsupportedVersion(let version): "format version \(version) is not one this build reads"
        case .checksumMismatch: "checksum mismatch"
        case .malformed(let part): "malformed: \(part)"
        }
    }
}
