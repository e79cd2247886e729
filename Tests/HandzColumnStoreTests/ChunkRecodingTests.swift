import HandzAnalyticsCore
import Testing
@testable import HandzColumnStore

/// A chunk built on a seal's worker, in a dictionary of its own, then adopted into the store's
/// (`SegmentRows.flush`, `ChunkBuilder.Recoding`): the same codes, entries and columns as the
/// chunk built in the store's dictionaries directly.
@Suite struct ChunkRecodingTests {
    /// Rows with every kind of cell a seal interns: UUIDs (one of them known to the store
    /// already), strings (one known), an id that is not canonical (its column becomes text, the
    /// UUIDs in it interned as strings by `columns`), an integer column promoted to text, booleans.
    static func fill(_ builder: inout ChunkBuilder, _ dictionaries: inout Dictionaries) {
        let installs = ["0190a000-0000-7000-8000-000000000003", "0190a000-0000-7000-8000-000000000001", "0190a000-0000-7000-8000-000000000002"]
        for row in 0..<40 {
            let time = Int64(1_772_323_200_000 + (39 - row) * 60_000)
            builder.addRow(timeMs: time, receivedMs: time + 7, eventID: UUIDWords(high: 0x0190_A000_0000_7000, low: UInt64(row)))
            builder.setText(ColumnName.installID, installs[row % 3], &dictionaries)
            builder.setText("app_version", ["1.4.2", "1.4.3", "1.5.0"][row % 3], &dictionaries)
            let flow = row == 17 ? "0190B000-0000-7000-8000-000000000011" : "0190b000-0000-7000-8000-0000000000\(10 + row % 7)"
            builder.setText(ColumnName.property("flow_id"), flow, &dictionaries)
            if row == 25 {
                builder.setText(ColumnName.property("node_count"), "many", &dictionaries)
            } else {
                builder.setInteger(ColumnName.property("node_count"), Int64(row % 9), &dictionaries)
            }
            builder.setBoolean(ColumnName.property("is_first_save"), row % 4 == 0, &dictionaries)
        }
    }

    @Test("a chunk adopted from its own dictionary has the codes, entries and columns of one interned directly")
    func adoptedEqualsDirect() {
        var store = Dictionaries()
        _ = store.code(uuid: UUIDWords(lowercaseString: "0190a000-0000-7000-8000-000000000001")!)
        _ = store.code(string: "1.4.3")
        _ = store.code(string: "unrelated")
        var direct = store
        var adopted = store

        var built = ChunkBuilder(eventName: "flow_saved_success", day: 20_513)
        Self.fill(&built, &direct)
        let expected = built.columns(&direct)

        var local = Dictionaries()
        var worker = ChunkBuilder(eventName: "flow_saved_success", day: 20_513)
        Self.fill(&worker, &local)
        worker.recode(ChunkBuilder.Recoding(adopting: local, into: &adopted))
        let columns = worker.columns(&adopted)

        #expect(columns == expected)
        #expect(adopted.uuids == direct.uuids)
        #expect(adopted.strings == direct.strings)
        #expect(columns.first { $0.name == ColumnName.property("flow_id") }?.type == .string)
        #expect(columns.first { $0.name == ColumnName.property("node_count") }?.type == .string)
    }

    @Test("a recoded builder takes further rows in the store's codes (its last-value cache is cleared)")
    func rowsAfterRecoding() {
        var store = Dictionaries()
        _ = store.code(string: "padding-a")
        _ = store.code(string: "padding-b")
        var direct = store
        var adopted = store
        var built = ChunkBuilder(eventName: "app_open", day: 1)
        var worker = ChunkBuilder(eventName: "app_open", day: 1)
        var local = Dictionaries()
        built.addRow(timeMs: 86_400_000, receivedMs: 1, eventID: UUIDWords(high: 1, low: 1))
        built.setText("app_version", "1.4.2", &direct)
        worker.addRow(timeMs: 86_400_000, receivedMs: 1, eventID: UUIDWords(high: 1, low: 1))
        worker.setText("app_version", "1.4.2", &local)
        worker.recode(ChunkBuilder.Recoding(adopting: local, into: &adopted))
        // The same value again: a stale cache would write the local code (1), not the store's (3).
        built.addRow(timeMs: 86_400_001, receivedMs: 2, eventID: UUIDWords(high: 1, low: 2))
        built.setText("app_version", "1.4.2", &direct)
        worker.addRow(timeMs: 86_400_001, receivedMs: 2, eventID: UUIDWords(high: 1, low: 2))
        worker.setText("app_version", "1.4.2", &adopted)
        #expect(worker.columns(&adopted) == built.columns(&direct))
        #expect(adopted.strings == ["padding-a", "padding-b", "1.4.2"])
    }
}
