import HandzAnalyticsCore
import HandzQuery

/// The walk from the anchors (the common case of ``ColumnPaths``): the anchor's chunks are read
/// first, for each session's first anchor in the range; then every chunk's session column, and
/// only the rows of anchored sessions on the path's side of their anchor are decoded further and
/// kept, in each session's small buffer of its `depth` nearest events (``NearestSteps``).
///
/// Nothing is materialised for the store's other rows and no key is numbered over all of them:
/// the full scan `walkByHash` needs (every event's install, session, time and id in flat arrays,
/// then both keys ranked) was most of `paths`' time (BENCHMARKS, "Analysts' insights"). The
/// chunks are decoded on both cores (``ParallelWork``), a wave at a time so the rows kept stay
/// few; the buffers are filled in chunk order, and as every event has its own id the nearest
/// events do not depend on that order.
extension ColumnPaths {
    /// Chunks decoded per wave of the second pass: enough to keep both cores busy, few enough
    /// that the kept rows of one wave stay small.
    static let chunksPerWave = 32

    /// The counts per path, or nil when this walk does not apply and the general walk must run:
    /// an anchored session's key is past ``KeyRanks``' limit, the store has too many event names
    /// for a packed path, or an anchored session's id also belongs to another install (the SQL
    /// partitions by install and session; this walk keys by session alone).
    func walkFromAnchors(_ query: PathQuery) throws(ColumnStoreError) -> [[String?]: Int64]? {
        guard let anchors = try AnchoredSessions(query, store: store, catalog: catalog) else { return nil }
        var eventIndex: [String: Int32] = [:]
        var eventNames: [String] = []
        for entry in store.manifest.chunks where eventIndex[entry.event] == nil {
            eventIndex[entry.event] = Int32(eventNames.count)
            eventNames.append(entry.event)
        }
        guard eventNames.count < (1 << Self.stepBits) - 1 else { return nil }
        var nearest = NearestSteps(sessions: anchors.count, depth: query.depth, direction: query.direction)
        let chunks = store.manifest.chunks
        for start in stride(from: 0, to: chunks.count, by: Self.chunksPerWave) {
            let wave = Array(chunks[start..<min(start + Self.chunksPerWave, chunks.count)])
            let kept = try ParallelWork.map(wave) { [store] entry throws(ColumnStoreError) in
                try anchors.sideRows(of: entry, store: store, next: query.direction == .next)
            }
            for (entry, rows) in zip(wave, kept) {
                guard !rows.mixedInstalls else { return nil }
                let event = eventIndex[entry.event]!
                for index in rows.slots.indices {
                    nearest.offer(session: Int(rows.slots[index]), time: rows.times[index], id: rows.ids[index], event: event)
                }
            }
        }
        var counts: [[String?]: Int64] = [:]
        for (key, sessions) in nearest.packedPaths(stepBits: Self.stepBits) {
            let steps = (0..<query.depth).map { step -> String? in
                let code = Int((key >> UInt64(step * Self.stepBits)) & ((1 << UInt64(Self.stepBits)) - 1))
                return code == 0 ? nil : eventNames[code - 1]
            }
            counts[steps] = sessions
        }
        return counts
    }
}

/// Each anchored session's first anchor in the range, by (time, id), with its install; the
/// sessions are numbered in key order (``KeyRanks``), which is the slot of their buffers.
struct AnchoredSessions: Sendable {
    let ranks: KeyRanks
    let time: [Int64]
    let id: [UUIDWords]
    let install: [UInt64]

    var count: Int { time.count }

    /// nil when a session key of the anchors is past ``KeyRanks/limit``.
    init?(_ query: PathQuery, store: ColumnStore, catalog: Catalog) throws(ColumnStoreError) {
        var request = ScanRequest()
        request.events = Set(query.anchor.events)
        request.fromMs = query.fromMs
        request.toMs = query.toMs
        request.matchers.add(bit: ColumnPaths.anchorBit, events: query.anchor.events, filters: query.anchor.filters, catalog: catalog, strings: store.strings)
        request.withSessions = true
        request.withIDs = true
        let rows = try ScannedRows(request, store: store)
        var firstTime = [Int64](repeating: .max, count: rows.sessions.count)
        var firstID = [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: rows.sessions.count)
        var firstInstall = [UInt64](repeating: 0, count: rows.sessions.count)
        for row in 0..<rows.count where rows.has(row, ColumnPaths.anchorBit) && rows.session[row] >= 0 {
            let session = Int(rows.session[row])
            if (rows.time[row], rows.ids[row]) < (firstTime[session], firstID[session]) {
                (firstTime[session], firstID[session]) = (rows.time[row], rows.ids[row])
                firstInstall[session] = rows.installs.keys[Int(rows.actor[row])]
            }
        }
        let anchored = (0..<rows.sessions.count).filter { firstTime[$0] != .max }
        let keys = anchored.map { rows.sessions.keys[$0] }
        let largest = keys.max() ?? 0
        guard largest < KeyRanks.limit else { return nil }
        let ranks = KeyRanks(CollectionOfOne(keys), largestKey: largest, excludingZero: true)
        var (time, id, install) = ([Int64](repeating: 0, count: keys.count), [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: keys.count),
                                   [UInt64](repeating: 0, count: keys.count))
        for (session, key) in zip(anchored, keys) {
            let slot = ranks.rank(key)
            (time[slot], id[slot], install[slot]) = (firstTime[session], firstID[session], firstInstall[session])
        }
        (self.ranks, self.time, self.id, self.install) = (ranks, time, id, install)
    }

    /// The rows of one chunk that belong to an anchored session and lie on the path's side of
    /// its anchor (after it when `next`, else before), with each session's slot.
    func sideRows(of entry: ColumnManifest.ChunkEntry, store: ColumnStore, next: Bool) throws(ColumnStoreError) -> SideRows {
        var kept = SideRows()
        let read = try store.columns(entry)
        let sessions = try read.textKeys(ColumnName.sessionID, store.textKeys)
        var matched: [Int] = []
        for row in sessions.indices where ranks.contains(sessions[row]) { matched.append(row) }
        guard !matched.isEmpty else { return kept }
        let times = try read.times(ColumnName.eventTime)
        let ids = try read.ids()
        let installs = try read.keys(ColumnName.installID, store.textKeys)
        for row in matched {
            let slot = ranks.rank(sessions[row])
            guard installs[row] == install[slot] else {
                kept.mixedInstalls = true
                return kept
            }
            let (anchor, here) = ((time[slot], id[slot]), (times[row], ids[row]))
            guard next ? anchor < here : anchor > here else { continue }
            kept.slots.append(Int32(slot))
            kept.times.append(times[row])
            kept.ids.append(ids[row])
        }
        return kept
    }
}

/// One chunk's rows for the buffers: each row's session slot, time and id.
struct SideRows: Sendable {
    var slots: [Int32] = []
    var times: [Int64] = []
    var ids: [UUIDWords] = []
    /// An anchored session's id seen under another install: the general walk must run.
    var mixedInstalls = false
}

/// Each anchored session's `depth` events nearest its anchor on the path's side, nearest first,
/// in flat arrays indexed by the session's slot: a small sorted buffer per session, so no list of
/// every event per session and no sort.
struct NearestSteps {
    let depth: Int
    let next: Bool
    private var time: [Int64]
    private var id: [UUIDWords]
    private var event: [Int32]
    private var filled: [UInt8]

    init(sessions: Int, depth: Int, direction: PathQuery.Direction) {
        self.depth = depth
        next = direction == .next
        time = Array(repeating: 0, count: sessions * depth)
        id = Array(repeating: UUIDWords(high: 0, low: 0), count: sessions * depth)
        event = Array(repeating: 0, count: sessions * depth)
        filled = Array(repeating: 0, count: sessions)
    }

    /// Whether `a` lies nearer the anchor than `b` on the path's side.
    @inline(__always) func nearer(_ a: (Int64, UUIDWords), _ b: (Int64, UUIDWords)) -> Bool { next ? a < b : a > b }

    /// Keeps the event if it is among the session's `depth` nearest so far.
    @inline(__always) mutating func offer(session: Int, time eventTime: Int64, id eventID: UUIDWords, event name: Int32) {
        let here = (eventTime, eventID)
        let base = session * depth
        var count = Int(filled[session])
        if count == depth {
            // Full: only an event nearer than the farthest kept gets in.
            guard nearer(here, (time[base + depth - 1], id[base + depth - 1])) else { return }
            count -= 1
        }
        var place = base + count
        while place > base && nearer(here, (time[place - 1], id[place - 1])) {
            (time[place], id[place], event[place]) = (time[place - 1], id[place - 1], event[place - 1])
            place -= 1
        }
        (time[place], id[place], event[place]) = (eventTime, eventID, name)
        filled[session] = UInt8(count + 1)
    }

    /// Each session's path as one integer (an event's index + 1 per step of `stepBits` bits, 0
    /// for none), counted.
    func packedPaths(stepBits: Int) -> [UInt64: Int64] {
        var packed: [UInt64: Int64] = [:]
        for session in filled.indices {
            var key: UInt64 = 0
            for step in 0..<Int(filled[session]) {
                key |= UInt64(event[session * depth + step] + 1) << UInt64(step * stepBits)
            }
            packed[key, default: 0] += 1
        }
        return packed
    }
}
