import HandzAnalyticsCore

/// Reads `manifest.json` (``ColumnManifest``) with the package's own JSON reader
/// (`JSONObjectReader`), member by member: every query opens the manifest first, and Foundation's
/// `JSONDecoder` spent 8% of a whole `funnel F0` process on a 1,436-chunk manifest (perf, issue 33).
///
/// The language is the manifest's JSON as written (``ColumnManifest/encoded()``), in any member
/// order and spacing; members it does not know are skipped, so a newer writer's additions do not
/// make the file unreadable. A missing member, a value of the wrong type, or anything that is not
/// JSON gives nil, which the caller turns into a ``ColumnStoreError`` naming the file.
enum ManifestReader {
    static func read(_ bytes: UnsafeRawBufferPointer) -> ColumnManifest? {
        var reader = JSONObjectReader(bytes)
        do {
            let manifest = try readManifest(&reader)
            try reader.finish()
            return manifest
        } catch {
            return nil
        }
    }

    /// A member that is missing or not of its type.
    struct Invalid: Error {}

    private static func readManifest(_ reader: inout JSONObjectReader) throws -> ColumnManifest {
        var format: Int?, generation: Int?, sealed: Int64?, changes: Int64?, sealedSegment: Int64 = 0
        var uuids: ColumnManifest.DictionaryFile?, strings: ColumnManifest.DictionaryFile?
        var chunks: [ColumnManifest.ChunkEntry]?, sessionChunks: [ColumnManifest.ChunkEntry] = []
        var first = try reader.beginObject()
        while let key = try reader.nextKey(&first) {
            switch ColumnManifest.CodingKeys(rawValue: String(decoding: key, as: UTF8.self)) {
            case .format: format = Int(try integer(&reader))
            case .generation: generation = Int(try integer(&reader))
            case .sealedThroughRowID: sealed = try integer(&reader)
            case .logChanges: changes = try integer(&reader)
            case .sealedThroughSegment: sealedSegment = try integer(&reader)
            case .uuids: uuids = try dictionaryFile(&reader)
            case .strings: strings = try dictionaryFile(&reader)
            case .chunks: chunks = try chunkList(&reader)
            case .sessionChunks: sessionChunks = try chunkList(&reader)
            case nil: try reader.skipValue()
            }
        }
        guard let format, let generation, let sealed, let changes, let uuids, let strings, let chunks, sealedSegment >= 0 else { throw Invalid() }
        return ColumnManifest(format: format, generation: generation, sealedThroughRowID: sealed, logChanges: changes,
                              sealedThroughSegment: UInt64(sealedSegment), uuids: uuids, strings: strings, chunks: chunks, sessionChunks: sessionChunks)
    }

    private static func dictionaryFile(_ reader: inout JSONObjectReader) throws -> ColumnManifest.DictionaryFile {
        var file: String?, count: Int?, bytes: Int?
        var first = try reader.beginObject()
        while let key = try reader.nextKey(&first) {
            switch String(decoding: key, as: UTF8.self) {
            case "file": file = try string(&reader)
            case "count": count = Int(try integer(&reader))
            case "bytes": bytes = Int(try integer(&reader))
            default: try reader.skipValue()
            }
        }
        guard let file, let count, let bytes else { throw Invalid() }
        return ColumnManifest.DictionaryFile(file: file, count: count, bytes: bytes)
    }

    private static func chunkList(_ reader: inout JSONObjectReader) throws -> [ColumnManifest.ChunkEntry] {
        var entries: [ColumnManifest.ChunkEntry] = []
        var first = try reader.beginArray()
        while try reader.nextElement(&first) { entries.append(try chunkEntry(&reader)) }
        return entries
    }

    private static func chunkEntry(_ reader: inout JSONObjectReader) throws -> ColumnManifest.ChunkEntry {
        var file: String?, event: String?, day: Int64?, rows: Int?, bytes: Int?, minTime: Int64?, maxTime: Int64?
        var versions: [String]?
        var first = try reader.beginObject()
        while let key = try reader.nextKey(&first) {
            switch ColumnManifest.ChunkEntry.CodingKeys(rawValue: String(decoding: key, as: UTF8.self)) {
            case .file: file = try string(&reader)
            case .event: event = try string(&reader)
            case .day: day = try integer(&reader)
            case .rows: rows = Int(try integer(&reader))
            case .bytes: bytes = Int(try integer(&reader))
            case .minTimeMs: minTime = try integer(&reader)
            case .maxTimeMs: maxTime = try integer(&reader)
            case .catalogVersions:
                var list: [String] = []
                var firstVersion = try reader.beginArray()
                while try reader.nextElement(&firstVersion) { list.append(try string(&reader)) }
                versions = list
            case nil: try reader.skipValue()
            }
        }
        guard let file, let event, let day, let rows, let bytes, let minTime, let maxTime, let versions else { throw Invalid() }
        return ColumnManifest.ChunkEntry(file: file, event: event, day: day, rows: rows, bytes: bytes, minTimeMs: minTime,
                                         maxTimeMs: maxTime, catalogVersions: versions)
    }

    private static func integer(_ reader: inout JSONObjectReader) throws -> Int64 {
        guard case .integer(let value) = try reader.value() else { throw Invalid() }
        return value
    }

    private static func string(_ reader: inout JSONObjectReader) throws -> String {
        guard case .string(let bytes) = try reader.value() else { throw Invalid() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
