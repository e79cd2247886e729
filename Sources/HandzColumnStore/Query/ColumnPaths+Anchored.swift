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
        // The slots in one contiguous part per worker, each part's buffers filled by one thread.
        let partSize = max(1, (anchors.count + ParallelWork.workers - 1) / ParallelWork.workers)
        let parts = (0..<ParallelWork.workers).map { part in
            NearestPart(NearestSteps(sessions: max(0, min(partSize, anchors.count - part * partSize)), depth: query.depth, direction: query.direction))
        }
        let chunks = store.manifest.chunks
        for start in stride(from: 0, to: chunks.count, by: ScannedRows.chunksPerWave) {
            let wave = Array(chunks[start..<min(start + ScannedRows.chunksPerWave, chunks.count)])
            let kept = try ParallelWork.map(wave) { [store] entry throws(ColumnStoreError) in
                try anchors.sideRows(of: entry, store: store, next: query.direction == .next, partSize: partSize, parts: parts.count)
            }
            guard !kept.contains(where: \.mixedInstalls) else { return nil }
            let events = wave.map { eventIndex[$0.event]! }
            _ = ParallelWork.map(Array(parts.indices)) { part in
                for (event, rows) in zip(events, kept) {
                    parts[part].offer(rows.parts[part], event: event)
                }
            }
        }
        var packed: [UInt64: Int64] = [:]
        for part in parts {
            packed.merge(part.steps.packedPaths(stepBits: Self.stepBits), uniquingKeysWith: +)
        }
        var counts: [[String?]: Int64] = [:]
        for (key, sessions) in packed {
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
    /// One session's anchor, in one 32-byte record: the second pass looks it up by slot for
    /// nearly every row of the store, in no useful order, and three arrays cost three cache
    /// misses a row where this costs one (perf annotate: the loads of the arrays' elements were
    /// 70 % of that loop).
    struct Anchor: Sendable {
        var time: Int64
        var id: UUIDWords
        var install: UInt64
    }

    let ranks: KeyRanks
    let anchors: [Anchor]

    var count: Int { anchors.count }

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
        var anchors = [Anchor](repeating: Anchor(time: 0, id: UUIDWords(high: 0, low: 0), install: 0), count: keys.count)
        for (session, key) in zip(anchored, keys) {
            anchors[ranks.rank(key)] = Anchor(time: firstTime[session], id: firstID[session], install: firstInstall[session])
        }
        (self.ranks, self.anchors) = (ranks, anchors)
    }

    /// The rows of one chunk that belong to an anchored session and lie on the path's side of
    /// its anchor (after it when `next`, else before), split by the part of the slots their
    /// session falls in (`partSize` slots a part).
    func sideRows(of entry: ColumnManifest.ChunkEntry, store: ColumnStore, next: Bool, partSize: Int, parts: Int) throws(ColumnStoreError) -> SideRows {
        var kept = SideRows(parts: parts)
        let read = try store.columns(entry)
        let sessions = try read.textKeys(ColumnName.sessionID, store.textKeys)
        var matched: [(row: Int32, slot: Int32)] = []
        matched.reserveCapacity(sessions.count)
        sessions.withUnsafeBufferPointer { keys in
            for row in keys.indices {
                if let slot = ranks.rankIfPresent(keys[row]) { matched.append((Int32(row), Int32(slot))) }
            }
        }
        guard !matched.isEmpty else { return kept }
        let times = try read.times(ColumnName.eventTime)
        let ids = try read.ids()
        let installs = try read.keys(ColumnName.installID, store.textKeys)
        for part in 0..<parts { kept.parts[part].reserve(matched.count / parts) }
        for (row, slot) in matched.lazy.map({ (Int($0.row), Int($0.slot)) }) {
            let anchor = anchors[slot]
            guard installs[row] == anchor.install else {
                kept.mixedInstalls = true
                return kept
            }
            let here = (times[row], ids[row])
            guard next ? (anchor.time, anchor.id) < here : (anchor.time, anchor.id) > here else { continue }
            let part = slot / partSize
            kept.parts[part].append(slot: Int32(slot - part * partSize), time: times[row], id: ids[row])
        }
        return kept
    }
}

/// One chunk's rows for the buffers, per part of the slots.
struct SideRows: Sendable {
    /// Each kept row's slot (within its part), time and id.
    struct Part: Sendable {
        var slots: [Int32] = []
        var times: [Int64] = []
        var ids: [UUIDWords] = []

        mutating func reserve(_ count: Int) {
            slots.reserveCapacity(count)
            times.reserveCapacity(count)
            ids.reserveCapacity(count)
        }

        @inline(__always) mutating func append(slot: Int32, time: Int64, id: UUIDWords) {
            slots.append(slot)
            times.append(time)
            ids.append(id)
        }
    }

    var parts: [Part]
    /// An anchored session's id seen under another install: the general walk must run.
    var mixedInstalls = false

    init(parts: Int) {
        self.parts = Array(repeating: Part(), count: parts)
    }
}

/// One part of the slots' buffers, filled by one thread at a time: the worker of its part in a
/// wave's second step (``ParallelWork`` returns before the next wave starts).
final class NearestPart: @unchecked Sendable {
    private(set) var steps: NearestSteps

    init(_ steps: NearestSteps) {
        self.steps = steps
    }

    func offer(_ rows: SideRows.Part, event: Int32) {
        steps.offer(rows, event: event)
    }
}

/// Each anchored session's `depth` events nearest its anchor on the path's side, nearest first,
/// in one flat array of `depth` records per session (its slot): a small sorted buffer per session,
/// so no list of every event per session and no sort. A session's records lie side by side (two
/// or three cache lines for depths 3 to 5) and say themselves how many are filled (event −1:
/// empty), as the buffers are reached in no useful order.
struct NearestSteps {
    struct Step {
        var time: Int64
        var id: UUIDWords
        var event: Int32
    }

    let depth: Int
    let next: Bool
    private var steps: [Step]

    init(sessions: Int, depth: Int, direction: PathQuery.Direction) {
        self.depth = depth
        next = direction == .next
        steps = Array(repeating: Step(time: 0, id: UUIDWords(high: 0, low: 0), event: -1), count: sessions * depth)
    }

    /// Keeps the event if it is among the session's `depth` nearest so far.
    @inline(__always) mutating func offer(session: Int, time: Int64, id: UUIDWords, event: Int32) {
        let here = (time, id)
        let (depth, next) = (depth, next)
        @inline(__always) func nearer(_ a: (Int64, UUIDWords), _ b: (Int64, UUIDWords)) -> Bool { next ? a < b : a > b }
        steps.withUnsafeMutableBufferPointer { all in
            let kept = UnsafeMutableBufferPointer(rebasing: all[(session * depth)..<(session * depth + depth)])
            var count = 0
            while count < depth && kept[count].event >= 0 { count += 1 }
            if count == depth {
                // Full: only an event nearer than the farthest kept gets in.
                guard nearer(here, (kept[depth - 1].time, kept[depth - 1].id)) else { return }
                count -= 1
            }
            var place = count
            while place > 0 && nearer(here, (kept[place - 1].time, kept[place - 1].id)) {
                kept[place] = kept[place - 1]
                place -= 1
            }
            kept[place] = Step(time: time, id: id, event: event)
        }
    }

    /// Offers each of one chunk's kept rows (all of event `event`).
    mutating func offer(_ rows: SideRows.Part, event: Int32) {
        for index in rows.slots.indices {
            offer(session: Int(rows.slots[index]), time: rows.times[index], id: rows.ids[index], event: event)
        }
    }

    /// Each session's path as one integer (an event's index + 1 per step of `stepBits` bits, 0
    /// for none), counted.
    func packedPaths(stepBits: Int) -> [UInt64: Int64] {
        var packed: [UInt64: Int64] = [:]
        for session in 0..<(depth == 0 ? 0 : steps.count / depth) {
            var key: UInt64 = 0
            for step in 0..<depth where steps[session * depth + step].event >= 0 {
                key |= UInt64(steps[session * depth + step].event + 1) << UInt64(step * stepBits)
            }
            packed[key, default: 0] += 1
        }
        return packed
    }
}
