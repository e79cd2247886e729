import Foundation
@testable import HandzColumnStore
import Testing

/// The manifest as the writer encodes it reads back whole with the store's own JSON reader, in
/// any member order; what is not a manifest is refused with the file's name.
@Suite struct ManifestReaderTests {
    static let manifest = ColumnManifest(
        format: 2, generation: 7, sealedThroughRowID: 1_459_687, logChanges: 3,
        uuids: .init(file: "uuids.7.dict", count: 2, bytes: 32), strings: .init(file: "strings.7.dict", count: 5, bytes: 61),
        chunks: [
            .init(file: "app_open.20513.7-1.chunk", event: "app_open", day: 20513, rows: 12, bytes: 900,
                  minTimeMs: 1_772_324_008_095, maxTimeMs: 1_772_409_577_575, catalogVersions: ["1.3.0", "2.0.0"]),
            .init(file: "flow_saved.20514.7-2.chunk", event: "flow_saved", day: 20514, rows: 1, bytes: 120,
                  minTimeMs: -5, maxTimeMs: 0, catalogVersions: []),
        ],
        sessionChunks: [.init(file: "_sessions.20513.7-3.chunk", event: SessionRollup.eventName, day: 20513, rows: 4, bytes: 300,
                              minTimeMs: 1, maxTimeMs: 2, catalogVersions: [])])

    @Test("the encoded manifest reads back equal; members in another order, unknown ones and spacing do not matter")
    func roundTrip() throws {
        #expect(try ColumnManifest.decode(Self.manifest.encoded()) == Self.manifest)
        // Compact, keys unsorted, an unknown member of each kind (skipped), an escaped string.
        var object = try #require(try JSONSerialization.jsonObject(with: Data(Self.manifest.encoded())) as? [String: Any])
        object["written_by"] = ["tool": "a newer writer", "list": [1, 2, [3]]]
        var chunks = try #require(object["chunks"] as? [[String: Any]])
        chunks[0]["checksum"] = NSNull()
        chunks[1]["event"] = "flow_saved"
        object["chunks"] = chunks
        var text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"flow_saved\"", with: "\"flow\\u005fsaved\"")
        #expect(try ColumnManifest.decode(Array(text.utf8)) == Self.manifest)
    }

    @Test("a manifest missing a member, with a value of the wrong type, or not JSON is refused, naming the file", arguments: [
        "{\"format\": 2}",
        #"{"format": "2", "generation": 1, "sealed_through_rowid": 0, "log_changes": 0, "uuids": {"file": "u", "count": 0, "bytes": 0}, "strings": {"file": "s", "count": 0, "bytes": 0}, "chunks": []}"#,
        #"{"format": 2, "generation": 1, "sealed_through_rowid": 0, "log_changes": 0, "uuids": {"file": "u", "count": 0, "bytes": 0}, "strings": {"file": "s", "count": 0, "bytes": 0}, "chunks": [1]}"#,
        #"{"format": 2, "generation": 1, "sealed_through_rowid": 0, "log_changes": 0, "uuids": {"file": "u", "count": 0, "bytes": 0}, "strings": {"file": "s", "count": 0, "bytes": 0}, "chunks": [],}"#,
        #"{"format": 2, "generation": 1, "sealed_through_rowid": 0, "log_changes": 0, "uuids": {"file": "u", "count": 0, "bytes": 0}, "strings": {"file": "s", "count": 0, "bytes": 0}, "chunks": []} x"#,
        "",
    ])
    func refused(_ text: String) {
        #expect(throws: ColumnStoreError(.corruptFile, file: ColumnManifest.fileName, reason: "not a column-store manifest")) {
            _ = try ColumnManifest.decode(Array(text.utf8))
        }
    }
}
