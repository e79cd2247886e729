import HandzAnalyticsCore
import NIOCore

/// Rendered pages of ranges that have ended (issue 16 §5), bounded in bytes (issue 32 §3).
///
/// - **Keys.** The page, its canonical controls and its resolved range; each entry remembers the
///   store's ``StoreVersion`` it was drawn at, and is served only at that version. Any commit to
///   the store — new events, a de-identification, retention — gives a new version, so a cached
///   page never outlives the data it shows; and once a newer version is seen, every entry of an
///   older one is dropped at once (it can never be served again), instead of waiting to be pushed
///   out.
/// - **Bytes.** At most ``budget`` bytes of pages (default ``defaultBudget``, 64 MiB); the least
///   recently used go first. A page larger than ``largestEntry`` (an eighth of the budget) is not
///   cached at all: it would push out eight ordinary pages to save one render.
/// - **No copies.** A page is kept as a `ByteBuffer` and a hit returns that buffer: the response
///   body shares its storage (reference-counted, copy-on-write, never written), so a hundred
///   concurrent hits on one page hold one page, not a hundred.
final class PageCache: Sendable {
    /// What the cache holds when `serve` does not say otherwise.
    static let defaultBudget = 64 << 20

    private struct Entry {
        var body: ByteBuffer
        var version: Int64
        var used: UInt64
    }

    private struct State {
        var pages: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// The newest store version seen; entries of older ones are gone.
        var newest: Int64 = .min
    }

    private let state = Locked(State())
    let budget: Int

    /// Pages larger than this are drawn every time.
    var largestEntry: Int { budget / 8 }

    init(budget: Int = PageCache.defaultBudget) { self.budget = budget }

    /// The page at `key` drawn at store version `version`, sharing the cached storage.
    func page(_ key: String, version: Int64) -> ByteBuffer? {
        state.withLock { state in
            Self.see(version, in: &state)
            guard var entry = state.pages[key], entry.version == version else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.pages[key] = entry
            return entry.body
        }
    }

    /// Keeps `body` as the page at `key` for store version `version`, unless it is too large or
    /// its version is already older than one seen.
    func store(_ key: String, version: Int64, _ body: ByteBuffer) {
        let size = body.readableBytes
        guard size <= largestEntry else { return }
        state.withLock { state in
            Self.see(version, in: &state)
            guard version == state.newest else { return }
            state.clock += 1
            if let old = state.pages.removeValue(forKey: key) { state.bytes -= old.body.readableBytes }
            while state.bytes + size > budget, let oldest = state.pages.min(by: { $0.value.used < $1.value.used })?.key {
                state.bytes -= state.pages.removeValue(forKey: oldest)!.body.readableBytes
            }
            state.pages[key] = Entry(body: body, version: version, used: state.clock)
            state.bytes += size
        }
    }

    /// Pages and bytes held (for the tests and the guide's figures).
    var usage: (pages: Int, bytes: Int) { state.withLock { ($0.pages.count, $0.bytes) } }

    /// A newer version makes every older entry unservable: dropped now.
    private static func see(_ version: Int64, in state: inout State) {
        guard version > state.newest else { return }
        state.newest = version
        state.pages = state.pages.filter { $0.value.version >= version }
        state.bytes = state.pages.values.reduce(0) { $0 + $1.body.readableBytes }
    }
}
