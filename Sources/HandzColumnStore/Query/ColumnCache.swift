import Synchronization

/// Decoded columns kept for the queries that share a store (the panels of one render, the pages
/// `serve` draws from one generation): a chunk's column is decompressed once, not once per panel
/// that reads it (issue 33 §2: "the panels of one render share their scans"). Bounded in bytes;
/// past the budget nothing more is kept (what is kept stays: a render reads the same chunks in
/// every panel, so the first come are as good as any). Two workers that miss the same column at
/// once both decode it, and the second keeps its copy out.
public final class ColumnCache: Sendable {
    public let budgetBytes: Int
    private let state = Mutex<(columns: [String: ColumnValues], chunks: [String: ChunkFile], bytes: Int)>(([:], [:], 0))

    public init(budgetBytes: Int = 768 << 20) {
        self.budgetBytes = budgetBytes
    }

    func column(_ file: String, _ name: String) -> ColumnValues? {
        state.withLock { $0.columns[file + "\u{0}" + name] }
    }

    func keep(_ values: ColumnValues, file: String, name: String) {
        let size = Self.bytes(values)
        state.withLock { state in
            guard state.bytes + size <= budgetBytes, state.columns[file + "\u{0}" + name] == nil else { return }
            state.columns[file + "\u{0}" + name] = values
            state.bytes += size
        }
    }

    func chunk(_ file: String) -> ChunkFile? { state.withLock { $0.chunks[file] } }

    func keep(_ chunk: ChunkFile, file: String) {
        state.withLock { state in
            guard state.bytes + chunk.byteCount <= budgetBytes, state.chunks[file] == nil else { return }
            state.chunks[file] = chunk
            state.bytes += chunk.byteCount
        }
    }

    /// Bytes held now.
    public var bytes: Int { state.withLock { $0.bytes } }

    static func bytes(_ values: ColumnValues) -> Int {
        switch values {
        case .codes(let codes): codes.count * 4
        case .integers(let words): words.count * 8
        case .times(let times): times.count * 8
        case .ids(let ids): ids.count * 16
        }
    }
}
