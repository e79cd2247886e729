import Foundation
import HandzCompression

/// Byte-level checks that a forgotten id is gone from a store's files (CH34 §8): the tests of
/// deletion on a running server, and of a restore that re-applies deletions.
public enum StoredBytes {
    /// The files under `directory` (recursively) holding one of `ids`, as text or as its 16
    /// bytes; a gzip file (a lake partition) is searched in its decompressed text.
    public static func filesHolding(_ ids: [String], under directory: URL) -> [String] {
        let searched = patterns(ids)
        var found: [String] = []
        for case let file as URL in FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)! {
            guard var data = FileManager.default.contents(atPath: file.path) else { continue }
            if file.pathExtension == "gz", let text = try? Gzip.decompress(Array(data), limit: 1 << 26) { data = Data(text) }
            if searched.contains(where: { data.range(of: Data($0)) != nil }) { found.append(file.lastPathComponent) }
        }
        return found
    }

    /// Whether the file at `path` (absent: no) holds one of `ids`, as text or as its 16 bytes.
    public static func file(_ path: String, holdsAnyOf ids: [String]) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return patterns(ids).contains { data.range(of: Data($0)) != nil }
    }

    /// Each id as its text and as its 16 bytes.
    static func patterns(_ ids: [String]) -> [[UInt8]] {
        ids.flatMap { id -> [[UInt8]] in
            let hex = id.replacingOccurrences(of: "-", with: "")
            let bytes = stride(from: 0, to: 32, by: 2).map { UInt8(hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)], radix: 16)! }
            return [Array(id.utf8), bytes]
        }
    }
}
