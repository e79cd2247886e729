/// A column-store failure, with a stable code and the file it concerns. Messages name files and
/// structural reasons, never a stored value (CH33 §1: values stay in the store).
public struct ColumnStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A chunk, dictionary or manifest that is not what the format says (damaged, truncated).
        case corruptFile = "column_file_corrupt"
        /// A file the manifest lists is not there.
        case missingFile = "column_file_missing"
        /// The operating system refused a read or a write (the reason gives its errno text).
        case ioFailed = "column_io_failed"
        /// Another writer (a seal in another process or task) held the store's write lock for
        /// longer than the wait allowed.
        case busy = "column_store_busy"
    }

    public let code: Code
    /// The file's name inside the store's directory.
    public let file: String
    public let reason: String

    public init(_ code: Code, file: String, reason: String) {
        self.code = code
        self.file = file
        self.reason = reason
    }

    init(_ error: ChunkFormatError, file: String) {
        self.init(.corruptFile, file: file, reason: error.reason)
    }

    public var description: String { "\(code.rawValue): \(file): \(reason)" }
}
