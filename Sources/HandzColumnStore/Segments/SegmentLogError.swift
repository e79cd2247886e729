/// A segment log failure, with a stable code and the file it concerns. Messages name files,
/// offsets and structural reasons, never a stored value (CH33 §1).
public struct SegmentLogError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A segment damaged before its last whole frame: acknowledged events lie after the
        /// damage, so recovery does not cut it; the store refuses to open until an operator
        /// restores the file (HandzColumnStore docs, "The segment log").
        case corruptSegment = "segment_corrupt"
        /// The disk (or the store's quota) is full: nothing of the write was acknowledged, and
        /// the next write tries again (503 with `Retry-After`, CH31).
        case diskFull = "segment_disk_full"
        /// Another process holds the log (one writer at a time, by an exclusive `flock`).
        case busy = "segment_log_busy"
        /// The operating system refused a read, a write or a flush (the reason gives its errno text).
        case ioFailed = "segment_io_failed"
    }

    public let code: Code
    /// The segment's file name inside the log's directory ("." for the directory).
    public let file: String
    public let reason: String

    public init(_ code: Code, file: String, reason: String) {
        self.code = code
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(file): \(reason)" }
}
