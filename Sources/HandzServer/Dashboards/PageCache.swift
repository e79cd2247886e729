import HandzAnalyticsCore

/// Rendered pages of ranges that have ended (issue 16 §5), keyed by the page, its canonical
/// controls, its resolved range and the store's ``StoreVersion``: any commit to the store — new
/// events, a de-identification, retention — gives new keys, so a cached page never outlives the
/// data it shows. At most `capacity` pages; the least recently used goes first.
final class PageCache: Sendable {
    private struct State {
        var pages: [String: (html: String, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }
    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func page(_ key: String) -> String? {
        state.withLock { state in
            guard let entry = state.pages[key] else { return nil }
            state.clock += 1
            state.pages[key] = (entry.html, state.clock)
            return entry.html
        }
    }

    func store(_ key: String, _ html: String) {
        state.withLock { state in
            state.clock += 1
            if state.pages[key] == nil, state.pages.count >= capacity, let oldest = state.pages.min(by: { $0.value.used < $1.value.used })?.key {
                state.pages.removeValue(forKey: oldest)
            }
            state.pages[key] = (html, state.clock)
        }
    }
}

/// One page computed at a time, a few waiting: a burst of reloads cannot take the ingestion
/// endpoint's cores (a page at 100,000 installs reads for seconds on two workers).
actor RenderGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    let maximumWaiting: Int

    init(maximumWaiting: Int) { self.maximumWaiting = maximumWaiting }

    /// False when too many requests already wait (the caller answers 503).
    func enter() async -> Bool {
        guard busy else {
            busy = true
            return true
        }
        guard waiting.count < maximumWaiting else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
