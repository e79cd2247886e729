/// What a segment file's bytes hold: its whole frames, and where and how the first damage lies.
/// Pure: bytes in, ranges out (the file layer, ``SegmentLog``, reads and cuts). Fuzzed
/// (`fuzz/Targets/segment_log.swift`): every frame lies inside the bytes, in order, and
/// ``validLength`` ends the last one.
public struct SegmentScan: Sendable, Equatable {
    /// How the bytes end.
    public enum Ending: Sendable, Equatable {
        /// After the last whole frame, nothing.
        case clean
        /// Bytes after the last whole frame that are not a whole frame, and no whole frame after
        /// them: an append cut short by a crash, or its bytes damaged. Recovery cuts them.
        case tornTail(offset: Int)
        /// A frame that is not whole, followed later by a whole one: damage in the middle of what
        /// was acknowledged. Recovery refuses to cut it (``SegmentLogError/Code/corruptSegment``).
        case damagedMiddle(offset: Int)
    }

    /// The sequence number the header carries.
    public var sequence: UInt64
    /// Each whole frame's payload, as a range of the bytes, in order.
    public var frames: [Range<Int>]
    /// The bytes through the end of the last whole frame (the header's when there is none).
    public var validLength: Int
    public var ending: Ending

    /// Scans `bytes`. Throws only when the header itself is not a segment's.
    public init(_ bytes: UnsafeRawBufferPointer) throws(ChunkFormatError) {
        guard bytes.count >= SegmentLayout.headerBytes else { throw .truncated }
        guard bytes.prefix(SegmentLayout.magic.count).elementsEqual(SegmentLayout.magic) else {
            if bytes.prefix(6).elementsEqual(SegmentLayout.magic.prefix(6)) { throw .unsupportedVersion(Int(bytes[7])) }
            throw .notAChunk
        }
        var reader = ByteReader(bytes, at: SegmentLayout.magic.count)
        sequence = try reader.uint64()
        let checksum = try reader.uint32()
        guard checksum == BlockCompression.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<16])) else { throw .checksumMismatch }
        frames = []
        var offset = SegmentLayout.headerBytes
        while offset < bytes.count, let payload = Self.frame(in: bytes, at: offset) {
            frames.append(payload)
            offset = payload.upperBound
        }
        validLength = offset
        if offset == bytes.count {
            ending = .clean
        } else if Self.nextWholeFrame(in: bytes, after: offset) != nil {
            ending = .damagedMiddle(offset: offset)
        } else {
            ending = .tornTail(offset: offset)
        }
    }

    /// The payload of the whole frame starting at `offset`, or nil when the bytes there are not one.
    static func frame(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Range<Int>? {
        guard bytes.count - offset >= SegmentLayout.frameHeaderBytes else { return nil }
        var reader = ByteReader(bytes, at: offset)
        guard let length = try? reader.uint32(), let payloadChecksum = try? reader.uint32(), let headerChecksum = try? reader.uint32() else {
            return nil
        }
        let header = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 8)])
        guard headerChecksum == BlockCompression.checksum(header), length > 0, Int(length) <= SegmentLayout.maxPayloadBytes else { return nil }
        let start = offset + SegmentLayout.frameHeaderBytes
        guard bytes.count - start >= Int(length) else { return nil }
        let payload = start..<(start + Int(length))
        guard BlockCompression.checksum(UnsafeRawBufferPointer(rebasing: bytes[payload])) == payloadChecksum else { return nil }
        return payload
    }

    /// The offset of the first whole frame after `offset`, found byte by byte: a frame header's
    /// own checksum rules out almost every offset before the payload's is computed.
    static func nextWholeFrame(in bytes: UnsafeRawBufferPointer, after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + SegmentLayout.frameHeaderBytes <= bytes.count {
            if frame(in: bytes, at: candidate) != nil { return candidate }
            candidate += 1
        }
        return nil
    }
}
