import HandzAnalyticsCore
import Testing
@testable import HandzColumnStore

/// The chunk format on its own (ChunkLayout): what is written reads back exactly, and damaged
/// bytes are refused with a format error, never a trap.
@Suite struct ChunkFormatTests {
    /// A chunk of three installs' rows with every column type, built as the sealer builds them.
    static func sampleColumns() -> (columns: [Column], dictionaries: Dictionaries) {
        var dictionaries = Dictionaries()
        var builder = ChunkBuilder(eventName: "flow_saved_success", day: 20_513)
        let installs = ["0190a000-0000-7000-8000-000000000003", "0190a000-0000-7000-8000-000000000001", "0190a000-0000-7000-8000-000000000002"]
        for row in 0..<30 {
            let time = Int64(1_772_323_200_000 + (29 - row) * 60_000)
            builder.addRow(timeMs: time, receivedMs: time + 1_500, eventID: UUIDWords(high: 0x0190_A000_0000_7000, low: UInt64(row)))
            builder.setText(ColumnName.installID, installs[row % 3], &dictionaries)
            builder.setText("app_version", row % 2 == 0 ? "1.4.2" : "1.4.3", &dictionaries)
            builder.setText(ColumnName.property("flow_id"), "0190b000-0000-7000-8000-0000000000\(10 + row % 5)", &dictionaries)
            if row % 4 != 0 { builder.setInteger(ColumnName.property("node_count"), Int64(row * 3 - 20), &dictionaries) }
            builder.setBoolean(ColumnName.property("is_first_save"), row % 3 == 0, &dictionaries)
        }
        return (builder.columns(&dictionaries), dictionaries)
    }

    @Test("every column type round-trips through the encoded bytes, rows in (install, time, id) order")
    func roundTrip() throws {
        let (columns, _) = Self.sampleColumns()
        let bytes = ChunkEncoder.encode(eventName: "flow_saved_success", day: 20_513, columns: columns)
        let chunk = try ChunkFile(bytes: bytes)
        #expect(chunk.eventName == "flow_saved_success")
        #expect(chunk.day == 20_513)
        #expect(chunk.rows == 30)
        #expect(try chunk.allColumns() == columns)
        #expect(chunk.entry(ColumnName.installID)?.type == .uuid)
        #expect(chunk.entry("app_version")?.type == .string)
        #expect(chunk.entry(ColumnName.property("node_count"))?.type == .integer)
        #expect(chunk.entry(ColumnName.property("is_first_save"))?.type == .boolean)
        guard case .codes(let installs)? = try chunk.column(ColumnName.installID), case .times(let times)? = try chunk.column(ColumnName.eventTime) else {
            Issue.record("no install or time column")
            return
        }
        for row in 1..<installs.count {
            #expect(installs[row - 1] < installs[row] || (installs[row - 1] == installs[row] && times[row - 1] <= times[row]))
        }
        guard case .integers(let words)? = try chunk.column(ColumnName.property("node_count")) else { return }
        #expect(words.compactMap(IntegerCell.value).contains(-20) == false, "row 0 has no node_count")
        #expect(words.compactMap(IntegerCell.value).contains(-17))
    }

    @Test("a value of another type turns the column into text, exactly as written")
    func typeConflictBecomesText() throws {
        var dictionaries = Dictionaries()
        var builder = ChunkBuilder(eventName: "app_open", day: 1)
        builder.addRow(timeMs: 86_400_000, receivedMs: 86_400_001, eventID: UUIDWords(high: 1, low: 1))
        builder.setText(ColumnName.installID, "0190a000-0000-7000-8000-000000000001", &dictionaries)
        builder.setInteger(ColumnName.property("x"), 42, &dictionaries)
        builder.addRow(timeMs: 86_400_002, receivedMs: 86_400_003, eventID: UUIDWords(high: 1, low: 2))
        builder.setText(ColumnName.installID, "0190A000-0000-7000-8000-000000000001", &dictionaries)
        builder.setText(ColumnName.property("x"), "forty-two", &dictionaries)
        let columns = builder.columns(&dictionaries)
        let x = try #require(columns.first { $0.name == ColumnName.property("x") })
        #expect(x.type == .string)
        guard case .codes(let codes) = x.values else { Issue.record("not codes"); return }
        #expect(Set(codes.compactMap { dictionaries.string($0) }) == ["42", "forty-two"])
        // An upper-case id is not canonical: the install column keeps both texts as written.
        let install = try #require(columns.first { $0.name == ColumnName.installID })
        #expect(install.type == .string)
    }

    @Test("every truncation and every flipped byte of a chunk is refused or reads back unchanged, never a trap")
    func damagedBytesAreRefused() throws {
        let (columns, _) = Self.sampleColumns()
        let bytes = ChunkEncoder.encode(eventName: "flow_saved_success", day: 20_513, columns: columns)
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(throws: ChunkFormatError.self) { try ChunkFile(bytes: Array(bytes.prefix(length))).allColumns() }
        }
        var refused = 0
        for position in stride(from: 0, to: bytes.count, by: 3) {
            var damaged = bytes
            damaged[position] ^= 0x5A
            do {
                _ = try ChunkFile(bytes: damaged).allColumns()
            } catch {
                refused += 1
            }
        }
        // Every byte is covered by the magic, the header checksum or a block checksum.
        #expect(refused == (bytes.count + 2) / 3)
    }

    @Test("a wrong magic and a newer version are told apart")
    func magicAndVersion() throws {
        let (columns, _) = Self.sampleColumns()
        var bytes = ChunkEncoder.encode(eventName: "flow_saved_success", day: 20_513, columns: columns)
        bytes[7] = 9
        #expect(throws: ChunkFormatError.unsupportedVersion(9)) { try ChunkFile(bytes: bytes) }
        bytes[0] = 0
        #expect(throws: ChunkFormatError.notAChunk) { try ChunkFile(bytes: bytes) }
    }

    @Test("varints: the edges of 64 bits, and an eleven-byte varint is refused")
    func varintEdges() throws {
        var writer = ByteWriter()
        let values: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), .max]
        for value in values { writer.varint(value) }
        for value: Int64 in [0, -1, 1, .min, .max] { writer.signed(value) }
        try writer.bytes.withFormatBytes { buffer throws(ChunkFormatError) in
            var reader = ByteReader(buffer)
            for value in values { #expect(try reader.varint() == value) }
            for value: Int64 in [0, -1, 1, .min, .max] { #expect(try reader.signed() == value) }
            #expect(reader.remaining == 0)
        }
        let tooLong = [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(throws: ChunkFormatError.self) {
            try tooLong.withFormatBytes { buffer throws(ChunkFormatError) in var reader = ByteReader(buffer); _ = try reader.varint() }
        }
    }
}
