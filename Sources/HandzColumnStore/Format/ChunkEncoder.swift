import HandzAnalyticsCore

/// Writes a chunk's bytes (``ChunkLayout``) from its columns. Pure. The caller gives the rows
/// already in the chunk's order (``ChunkBuilder`` sorts them).
public enum ChunkEncoder {
    public static func encode(eventName: String, day: Int64, columns: [Column]) -> [UInt8] {
        let rows = columns.first?.values.count ?? 0
        precondition(columns.allSatisfy { $0.values.count == rows }, "every column of a chunk has one value per row")
        var times: [Int64] = []
        if case .times(let values)? = columns.first(where: { $0.name == ColumnName.eventTime })?.values { times = values }

        var blocks: [UInt8] = []
        var entries: [ChunkLayout.Entry] = []
        for column in columns {
            let (encoding, raw) = encodeValues(column.values, type: column.type)
            let stored = BlockCompression.compress(raw)
            entries.append(ChunkLayout.Entry(name: column.name, type: column.type, encoding: encoding, offset: blocks.count,
                                             storedBytes: stored.count, rawBytes: raw.count, checksum: BlockCompression.checksum(stored)))
            blocks += stored
        }

        var header = ByteWriter()
        header.string(eventName)
        header.signed(day)
        header.varint(UInt64(rows))
        header.signed(times.min() ?? 0)
        header.signed(times.max() ?? 0)
        header.varint(UInt64(entries.count))
        for entry in entries {
            header.string(entry.name)
            header.bytes.append(entry.type.rawValue)
            header.bytes.append(entry.encoding.rawValue)
            header.varint(UInt64(entry.offset))
            header.varint(UInt64(entry.storedBytes))
            header.varint(UInt64(entry.rawBytes))
            header.uint32(entry.checksum)
        }

        var file = ByteWriter(capacity: ChunkLayout.magic.count + 8 + header.bytes.count + blocks.count)
        file.append(ChunkLayout.magic)
        file.uint32(UInt32(header.bytes.count))
        file.uint32(BlockCompression.checksum(header.bytes))
        file.append(header.bytes)
        file.append(blocks)
        return file.bytes
    }

    static func encodeValues(_ values: ColumnValues, type: ColumnType) -> (BlockEncoding, [UInt8]) {
        var out = ByteWriter(capacity: values.count * 2)
        switch values {
        case .codes(let codes) where type == .boolean:
            out.bytes = codes.map { UInt8(truncatingIfNeeded: $0) }
            return (.byte, out.bytes)
        case .codes(let codes):
            if zip(codes, codes.dropFirst()).allSatisfy({ $0 <= $1 }) {
                var previous: Int64 = 0
                for code in codes { out.signed(Int64(code) - previous); previous = Int64(code) }
                return (.delta, out.bytes)
            }
            for code in codes { out.varint(UInt64(code)) }
            return (.varint, out.bytes)
        case .integers(let words):
            for word in words { out.varint(word) }
            return (.varint, out.bytes)
        case .times(let times):
            var previous: Int64 = 0
            for time in times { out.signed(time &- previous); previous = time }
            return (.delta, out.bytes)
        case .ids(let ids):
            for id in ids {
                for shift in stride(from: 56, through: 0, by: -8) { out.bytes.append(UInt8(truncatingIfNeeded: id.high >> UInt64(shift))) }
                for shift in stride(from: 56, through: 0, by: -8) { out.bytes.append(UInt8(truncatingIfNeeded: id.low >> UInt64(shift))) }
            }
            return (.fixed16, out.bytes)
        }
    }
}
