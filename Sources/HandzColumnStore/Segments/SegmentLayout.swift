/// The byte layout of a segment file (format 1): the write path's log of accepted batches, which
/// the sealer turns into column chunks and then removes (issue 34). The model is LevelDB's log
/// (`doc/log_format.md`): checksummed records appended in order, so a torn tail is found and cut
/// on recovery; unlike LevelDB, a record is never split across blocks, and each frame carries a
/// checksum of its own header, so a reader can find the next whole frame after damage without
/// fixed-size blocks.
///
/// ```
/// header   8 bytes "HZSEGM" 0x00 then the format version (1)
///          u64 the segment's sequence number (its file name, in hex)
///          u32 CRC-32 of the 16 bytes before it
/// frame    u32 payload length (1 ... maxPayloadBytes)
///          u32 CRC-32 of the payload
///          u32 CRC-32 of the 8 bytes before it (the frame's header)
///          the payload (a ``BatchRecord``)
/// ```
/// Integers are little-endian. A frame is written whole by one `write` with the rest of its group
/// commit and made durable by one `fdatasync` before any of its events is acknowledged, so after a
/// crash only the last frames of the newest segment can be incomplete: ``SegmentScan`` stops at
/// the first frame that is not whole and says whether any whole frame follows it (damage in the
/// middle, which recovery refuses to cut) or not (a torn tail, cut back to the last whole frame).
public enum SegmentLayout {
    static let magic: [UInt8] = Array("HZSEGM".utf8) + [0, 1]
    static let version = 1
    /// Magic, sequence number, header checksum.
    static let headerBytes = 20
    /// Payload length, payload checksum, header checksum.
    static let frameHeaderBytes = 12
    /// The largest payload a frame may claim: a request holds at most 1,000 events of at most
    /// 32 KiB each (CH30), far below it.
    static let maxPayloadBytes = 64 << 20
    /// A segment is closed and the next one started once it holds this many bytes.
    public static let defaultSegmentBytes = 64 << 20
    /// The file name extension of a segment.
    public static let fileExtension = "hzlog"

    /// The file name of segment `sequence`: its number in 16 hex digits, so names sort in order.
    public static func fileName(sequence: UInt64) -> String {
        let digits = String(sequence, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "." + fileExtension
    }

    /// The sequence number a segment's file name carries; nil for any other name.
    public static func sequence(fileName: String) -> UInt64? {
        guard fileName.count == 16 + 1 + fileExtension.count, fileName.hasSuffix("." + fileExtension) else { return nil }
        return UInt64(fileName.prefix(16), radix: 16)
    }

    /// The header of segment `sequence`.
    static func header(sequence: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: headerBytes)
        writer.append(magic)
        writer.uint64(sequence)
        writer.uint32(BlockCompression.checksum(writer.bytes))
        return writer.bytes
    }

    /// Appends one frame holding `payload` to `bytes`.
    static func appendFrame(_ payload: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        var header = ByteWriter(capacity: frameHeaderBytes)
        header.uint32(UInt32(payload.count))
        header.uint32(BlockCompression.checksum(payload))
        header.uint32(BlockCompression.checksum(header.bytes))
        bytes += header.bytes
        bytes.append(contentsOf: payload)
    }
}
