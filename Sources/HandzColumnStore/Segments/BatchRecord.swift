import HandzAnalyticsCore
import HandzStore

/// One accepted request as a segment frame holds it: the receipt the client was told, the
/// quarantine records (where and why, never what: CH33 §1), and the events stored now (the
/// request's duplicates are counted, not kept). Encoded without compression: the request path
/// pays for nothing it does not need, and a segment lives only until it is sealed.
///
/// ```
/// kind           byte 1 (a batch)
/// received       signed varint, epoch ms (CH33 §9)
/// sent at        byte 0 or 1, then a signed varint when 1
/// body bytes     varint
/// key id, catalog version   length-prefixed UTF-8
/// duplicates     varint
/// rejected       varint count, then each: byte 0/1 and the name when 1, varint byte size,
///                varint count of (code, path) strings
/// rows           varint count, varint fields per row (EventRows.fields), then the 16-byte ids,
///                the event times as signed deltas, per row and field a varint length + 1 (0 for
///                NULL), and the fields' bytes in that order
/// ```
public struct BatchRecord: Sendable {
    public var receivedTimeMs: Int64
    public var keyID: String
    public var catalogVersion: String
    public var sentAtMs: Int64?
    public var bodyBytes: Int
    /// Events of the request already stored (their ids were in the store before it).
    public var duplicates: Int
    public var rejected: [RejectedEventRecord]
    /// The events stored by this request, in the request's order.
    public var rows: EventRows

    /// Events the request carried: stored, duplicate and rejected.
    public var requestEvents: Int { rows.count + duplicates + rejected.count }

    static let kindBatch: UInt8 = 1
    /// Rows a frame may claim (a request holds at most 1,000; an import's batch more).
    static let maxRows = 1 << 20

    public init(receivedTimeMs: Int64, keyID: String, catalogVersion: String, sentAtMs: Int64?, bodyBytes: Int,
                duplicates: Int, rejected: [RejectedEventRecord], rows: EventRows) {
        self.receivedTimeMs = receivedTimeMs
        self.keyID = keyID
        self.catalogVersion = catalogVersion
        self.sentAtMs = sentAtMs
        self.bodyBytes = bodyBytes
        self.duplicates = duplicates
        self.rejected = rejected
        self.rows = rows
    }

    /// The batch's record: its rows where `inserted` is true, the others counted as duplicates.
    public init(_ batch: IngestBatch, inserted: [Bool]) {
        var rows = EventRows(capacity: inserted.count)
        if inserted.allSatisfy({ $0 }) {
            rows = batch.rows
        } else {
            for row in 0..<batch.rows.count where inserted[row] { rows.appendRow(row, of: batch.rows) }
        }
        self.init(receivedTimeMs: batch.receivedTimeMs, keyID: batch.keyID, catalogVersion: batch.catalogVersion,
                  sentAtMs: batch.sentAtMs, bodyBytes: batch.bodyBytes, duplicates: inserted.count - rows.count,
                  rejected: batch.rejected, rows: rows)
    }

    /// Appends the record's encoding to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        var writer = ByteWriter(capacity: 64 + rows.count * 160)
        writer.bytes.append(Self.kindBatch)
        writer.signed(receivedTimeMs)
        if let sentAtMs {
            writer.bytes.append(1)
            writer.signed(sentAtMs)
        } else {
            writer.bytes.append(0)
        }
        writer.varint(UInt64(max(0, bodyBytes)))
        writer.string(keyID)
        writer.string(catalogVersion)
        writer.varint(UInt64(duplicates))
        writer.varint(UInt64(rejected.count))
        for record in rejected {
            if let name = record.eventName {
                writer.bytes.append(1)
                writer.string(name)
            } else {
                writer.bytes.append(0)
            }
            writer.varint(UInt64(max(0, record.byteSize)))
            writer.varint(UInt64(record.errors.count))
            for error in record.errors {
                writer.string(error.code)
                writer.string(error.path)
            }
        }
        writer.varint(UInt64(rows.count))
        writer.varint(UInt64(EventRows.fields.count))
        writer.bytes += rows.eventIDs
        var previous: Int64 = 0
        for time in rows.eventTimes {
            writer.signed(time &- previous)
            previous = time
        }
        var text: [UInt8] = []
        text.reserveCapacity(rows.bytes.count)
        for row in 0..<rows.count {
            for field in EventRows.fields {
                rows.withField(row, field) { value in
                    if let value {
                        writer.varint(UInt64(value.count) + 1)
                        text.append(contentsOf: value)
                    } else {
                        writer.varint(0)
                    }
                }
            }
        }
        writer.varint(UInt64(text.count))
        writer.bytes += text
        bytes += writer.bytes
    }

    /// Reads a record ``encode(into:)`` wrote. Every count and length is checked against the bytes
    /// that remain, so damaged bytes end in ``ChunkFormatError``, never a crash or a huge allocation.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(ChunkFormatError) {
        var reader = ByteReader(bytes)
        guard try reader.byte() == Self.kindBatch else { throw .malformed("a segment record of an unknown kind") }
        receivedTimeMs = try reader.signed()
        switch try reader.byte() {
        case 0: sentAtMs = nil
        case 1: sentAtMs = try reader.signed()
        default: throw .malformed("a flag that is neither 0 nor 1")
        }
        bodyBytes = try reader.count(atMost: Int(Int32.max))
        keyID = try reader.string(atMost: 256)
        catalogVersion = try reader.string(atMost: 256)
        duplicates = try reader.count(atMost: Self.maxRows)
        let rejectedCount = try reader.count(atMost: reader.remaining)
        rejected = []
        for _ in 0..<rejectedCount {
            let name: String?
            switch try reader.byte() {
            case 0: name = nil
            case 1: name = try reader.string(atMost: 256)
            default: throw .malformed("a flag that is neither 0 nor 1")
            }
            let byteSize = try reader.count(atMost: Int(Int32.max))
            let errorCount = try reader.count(atMost: reader.remaining / 2)
            var errors: [(code: String, path: String)] = []
            for _ in 0..<errorCount { errors.append((try reader.string(atMost: 256), try reader.string(atMost: 4096))) }
            rejected.append(RejectedEventRecord(eventName: name, errors: errors, byteSize: byteSize))
        }
        let rowCount = try reader.count(atMost: min(Self.maxRows, reader.remaining / 16))
        guard try reader.count(atMost: 1024) == EventRows.fields.count else { throw .malformed("a record of another event layout") }
        let ids = try reader.slice(rowCount * 16)
        var times: [Int64] = []
        times.reserveCapacity(rowCount)
        var previous: Int64 = 0
        for _ in 0..<rowCount {
            previous = previous &+ (try reader.signed())
            times.append(previous)
        }
        let cells = rowCount * EventRows.fields.count
        var lengths: [Int] = []
        lengths.reserveCapacity(cells)
        var total = 0
        for _ in 0..<cells {
            let length = try reader.count(atMost: reader.remaining)
            lengths.append(length - 1)
            total += max(0, length - 1)
        }
        guard try reader.count(atMost: reader.remaining) == total else { throw .malformed("field lengths that do not add up") }
        let text = try reader.slice(total)
        guard reader.remaining == 0 else { throw .malformed("bytes after the record") }
        var rows = EventRows(capacity: rowCount)
        var cell = 0
        var offset = 0
        for row in 0..<rowCount {
            let id = UUIDWords(orderingBytes: UnsafeRawBufferPointer(rebasing: ids[(row * 16)..<(row * 16 + 16)]))
            rows.beginRow(eventID: (id.high, id.low), eventTimeMs: times[row])
            for _ in EventRows.fields {
                let length = lengths[cell]
                cell += 1
                if length < 0 {
                    rows.appendField(nil)
                } else {
                    rows.appendField(UnsafeRawBufferPointer(rebasing: text[offset..<(offset + length)]))
                    offset += length
                }
            }
        }
        self.rows = rows
    }
}
