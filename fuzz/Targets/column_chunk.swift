// Fuzz target (libFuzzer): the column store's readers on arbitrary bytes (issue 33) — as a chunk
// file (header, column directory, each block's checksum, decompression and decoding), as a
// manifest, and as the two dictionary files. Every input must end in a format error or a value,
// never a trap; and a chunk that reads must read back the same after it is written again.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzColumnChunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let chunk = try? ChunkFile(bytes: bytes), let columns = try? chunk.allColumns() {
        // Round trip: only the columns' counts can differ from the header's (an empty chunk).
        if columns.allSatisfy({ $0.values.count == chunk.rows }) {
            let again = ChunkEncoder.encode(eventName: chunk.eventName, day: chunk.day, columns: columns)
            guard let reread = try? ChunkFile(bytes: again), (try? reread.allColumns()) == columns else {
                fatalError("a chunk that reads does not read back the same after it is written again")
            }
        }
    }
    _ = try? ColumnManifest.decode(bytes)
    bytes.withUnsafeBytes { buffer in
        _ = try? DictionaryEncoding.readUUIDs(buffer, count: size / 16)
        _ = try? DictionaryEncoding.readStrings(buffer, count: min(size, 64))
    }
    return 0
}
