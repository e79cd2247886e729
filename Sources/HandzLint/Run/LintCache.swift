import Foundation

/// Per-file lint results kept between runs in the build plugin's work directory, so a build
/// re-lints only the files that changed. A debug build of the tool (what an app's debug build
/// runs) parses tens of times slower than a release one, which makes this worth having.
///
/// A cache is valid for one fingerprint: the catalog's files, the configuration file and the tool
/// itself. A different fingerprint, or a file that does not decode, starts an empty cache.
public struct LintCache: Codable, Sendable {
    struct Entry: Codable, Sendable {
        var contentHash: UInt64
        var result: SourceLinter.FileResult
    }

    public let fingerprint: UInt64
    private var entries: [String: Entry]
    /// Files whose result came from the cache in this run.
    public private(set) var hits = 0

    public init(fingerprint: UInt64) {
        self.fingerprint = fingerprint
        entries = [:]
    }

    private enum CodingKeys: String, CodingKey { case fingerprint, entries }

    /// The cache stored at `path` if it was made for `fingerprint`, else an empty one.
    public static func load(path: String, fingerprint: UInt64) -> LintCache {
        guard let data = FileManager.default.contents(atPath: path),
              let cache = try? JSONDecoder().decode(LintCache.self, from: data),
              cache.fingerprint == fingerprint
        else { return LintCache(fingerprint: fingerprint) }
        return cache
    }

    public func save(path: String) throws {
        try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    mutating func result(path: String, contentHash: UInt64) -> SourceLinter.FileResult? {
        guard let entry = entries[path], entry.contentHash == contentHash else { return nil }
        hits += 1
        return entry.result
    }

    mutating func store(_ result: SourceLinter.FileResult, path: String, contentHash: UInt64) {
        entries[path] = Entry(contentHash: contentHash, result: result)
    }

    /// Keeps only the files of this run, so renamed and deleted files do not pile up.
    mutating func retain(_ paths: [String]) {
        let kept = Set(paths)
        entries = entries.filter { kept.contains($0.key) }
    }
}

/// FNV-1a, 64 bits: a fast hash for recognising unchanged content (not a security boundary).
public struct ContentHash: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
    }

    public static func of(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = ContentHash()
        hash.combine(bytes)
        return hash.value
    }
}
