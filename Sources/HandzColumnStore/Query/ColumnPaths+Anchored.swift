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
/// chunks are read on both cores (``ParallelWork``), a day's chunks at a time so the rows kept
/// stay few and that day's anchors and buffers stay in the cache; of each session's rows in a
/// chunk only the `depth` next to its anchor are kept. The buffers are filled in chunk order, and
/// as every event has its own id the nearest events do not depend on that order.
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
        // The slots in interleaved blocks, a part per worker, each part's buffers filled by one
        // thread (``SlotParts``).
        let layout = SlotParts(sessions: anchors.count, parts: ParallelWork.workers)
        let parts = (0..<layout.parts).map { part in
            NearestPart(NearestSteps(sessions: layout.sessions(inPart: part), depth: query.depth, direction: query.direction))
        }
        // A day's chunks at a time: their rows fall in that day's slots (``AnchoredSessions``), which
        // stay in the cache across the day's chunks.
        for wave in Self.daysOfChunks(store.manifest.chunks) {
            let kept = try ParallelWork.map(wave) { [store] entry throws(ColumnStoreError) in
                try anchors.sideRows(of: entry, store: store, next: query.direction == .next, depth: query.depth, layout: layout)
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

    /// The chunks a day at a time, at most ``ScannedRows/chunksPerWave`` twice over in one wave.
    static func daysOfChunks(_ chunks: [ColumnManifest.ChunkEntry]) -> [[ColumnManifest.ChunkEntry]] {
        let byDay = Dictionary(grouping: chunks, by: \.day)
        return byDay.keys.sorted().flatMap { day in
            let entries = byDay[day]!
            return stride(from: 0, to: entries.count, by: 2 * ScannedRows.chunksPerWave).map { Array(entries[$0..<min($0 + 2 * ScannedRows.chunksPerWave, entries.count)]) }
        }
    }
}

/// Each anchored session's first anchor in the range, by (time, id), with its install, in the
/// slot of its buffers.
///
/// The slots follow the anchor's day, then the session key's order (``KeyRanks``). The second
/// pass looks a session up for each run of its rows in a chunk; a chunk holds one day's rows
/// sorted by install, and the key order of sessions follows installs across every day, so by key
/// alone each chunk's runs swept all the slots, a miss each (perf: two thirds of `sideRows`, most
/// of the rest in the buffers' `offer`). By day first, and with a day's chunks read together, a
/// day's rows fall in the slots of its own day (and its neighbour's, for sessions across
/// midnight): a thirtieth of the anchors and buffers on a month, kept in the cache while the
/// day's chunks are read.
struct AnchoredSessions: Sendable {
    /// One session's anchor, in one 32-byte record: the second pass looks it up by slot for
    /// nearly every run of rows, and three arrays cost three cache
    /// misses a row where this costs one (perf annotate: the loads of the arrays' elements were
    /// 70 % of that loop).
    struct Anchor: Sendable {
        var time: Int64
        var id: UUIDWords
        var install: UInt64
    }

    let ranks: KeyRanks
    /// Each ranked key's slot.
    let slotOfRank: [Int32]
    /// Each slot's anchor.
    let anchors: [Anchor]

    var count: Int { anchors.count }

    /// One chunk's first anchor of each run of a session's rows.
    private struct Candidate: Sendable {
        var session: UInt64
        var time: Int64
        var id: UUIDWords
        var install: UInt64
    }

    /// nil when a session key of the anchors is past ``KeyRanks/limit``.
    ///
    /// The anchor's chunks are read chunk by chunk on both cores, each keeping the first
    /// matching row in the range of each run of a session's rows (a chunk's rows are in
    /// (install, time, id) order; the earliest is kept whatever the order), then each session's
    /// earliest over the chunks. No flat array of every anchor row and no numbering of sessions
    /// and installs (the scan's, a third of a served `paths --anchor screen_viewed`, perf).
    init?(_ query: PathQuery, store: ColumnStore, catalog: Catalog) throws(ColumnStoreError) {
        var matchers = RowMatchers()
        matchers.add(bit: ColumnPaths.anchorBit, events: query.anchor.events, filters: query.anchor.filters, catalog: catalog, strings: store.strings)
        let events = Set(query.anchor.events)
        let (lower, upper) = (query.fromMs, query.toMs)
        let entries = store.chunks(events: events, fromMs: lower, toMs: upper)
        let found = try ParallelWork.map(entries) { [matchers] entry throws(ColumnStoreError) -> [Candidate] in
            let read = try store.columns(entry)
            let masks = try matchers.masks(read, strings: store.strings)
            let sessions = try read.keyColumn(ColumnName.sessionID, store.textKeys)
            let installs = try read.keyColumn(ColumnName.installID, store.textKeys)
            let times = try read.times(ColumnName.eventTime)
            let ids = try read.ids()
            var candidates: [Candidate] = []
            for row in 0..<read.chunk.rows where masks[row] != 0 && times[row] >= lower && times[row] < upper && sessions[row] != 0 {
                let here = Candidate(session: sessions[row], time: times[row], id: ids[row], install: installs[row])
                if let last = candidates.last, last.session == here.session {
                    if (here.time, here.id) < (last.time, last.id) { candidates[candidates.count - 1] = here }
                    continue
                }
                candidates.append(here)
            }
            return candidates
        }
        let largest = found.lazy.flatMap { $0.lazy.map(\.session) }.max() ?? 0
        guard largest < KeyRanks.limit else { return nil }
        let ranks = KeyRanks(found.lazy.map { $0.map(\.session) }, largestKey: largest, excludingZero: true)
        var firsts = [Candidate](repeating: Candidate(session: 0, time: .max, id: UUIDWords(high: .max, low: .max), install: 0), count: ranks.keys.count)
        for candidate in found.joined() {
            let rank = ranks.rank(candidate.session)
            if (candidate.time, candidate.id) < (firsts[rank].time, firsts[rank].id) { firsts[rank] = candidate }
        }
        self.init(ranks: ranks, firsts: firsts)
    }

    /// The slots of the sessions `ranks` numbers, each with its first anchor (`firsts[rank]`).
    private init(ranks: KeyRanks, firsts: [Candidate]) {
        let keys = ranks.keys
        // The sessions in rank order with their anchor's day, then numbered day by day (a
        // counting sort, stable, so rank order within a day).
        let dayOfRank = firsts.map { LogSealer.day(of: $0.time) }
        let firstDay = dayOfRank.min() ?? 0
        var firstSlotOfDay = [Int](repeating: 0, count: Int((dayOfRank.max() ?? 0) - firstDay) + 2)
        for day in dayOfRank { firstSlotOfDay[Int(day - firstDay) + 1] += 1 }
        for day in firstSlotOfDay.indices.dropFirst() { firstSlotOfDay[day] += firstSlotOfDay[day - 1] }
        var slotOfRank = [Int32](repeating: 0, count: keys.count)
        for rank in dayOfRank.indices {
            let day = Int(dayOfRank[rank] - firstDay)
            slotOfRank[rank] = Int32(firstSlotOfDay[day])
            firstSlotOfDay[day] += 1
        }
        var anchors = [Anchor](repeating: Anchor(time: 0, id: UUIDWords(high: 0, low: 0), install: 0), count: keys.count)
        for (rank, first) in firsts.enumerated() {
            anchors[Int(slotOfRank[rank])] = Anchor(time: first.time, id: first.id, install: first.install)
        }
        (self.ranks, self.slotOfRank, self.anchors) = (ranks, slotOfRank, anchors)
    }

    /// The rows of one chunk that belong to an anchored session, lie on the path's side of its
    /// anchor (after it when `next`, else before) and may be among its `depth` nearest, split by
    /// the part of the slots their session falls in.
    ///
    /// A chunk's rows are sorted by (install, time, id) (``ChunkBuilder``), so the rows of one
    /// session that lie together (a run) are in path order, and of each run only the `depth`
    /// rows next to the anchor can be among the session's nearest: the run's others are farther
    /// than those. Only they are kept, which spares the buffers most of a frequent event's rows.
    /// The order is checked as the run is read; a run out of order (no chunk this store writes)
    /// is kept whole, which is exact too.
    func sideRows(of entry: ColumnManifest.ChunkEntry, store: ColumnStore, next: Bool, depth: Int, layout: SlotParts) throws(ColumnStoreError) -> SideRows {
        var kept = SideRows(parts: layout.parts)
        let read = try store.columns(entry)
        let sessions = try read.keyColumn(ColumnName.sessionID, store.textKeys)
        let rowCount = sessions.count
        var row = 0
        // The first run of an anchored session, before anything else is decoded.
        while row < rowCount && ranks.rankIfPresent(sessions[row]) == nil { row += 1 }
        guard row < rowCount else { return kept }
        let times = try read.times(ColumnName.eventTime)
        let ids = try read.ids()
        let installs = try read.keyColumn(ColumnName.installID, store.textKeys)
        for part in 0..<layout.parts { kept.parts[part].reserve(min(rowCount - row, anchors.count * depth) / layout.parts) }
        while row < rowCount {
            let key = sessions[row]
            var end = row + 1
            while end < rowCount && sessions[end] == key { end += 1 }
            defer { row = end }
            guard let rank = ranks.rankIfPresent(key) else { continue }
            let slot = Int(slotOfRank[rank])
            let anchor = anchors[slot]
            let anchorPlace = (anchor.time, anchor.id)
            // The run's rows before the anchor are [row, before), those after it [after, end).
            var before = row, after = row, ordered = true
            for place in row..<end {
                guard installs[place] == anchor.install else {
                    kept.mixedInstalls = true
                    return kept
                }
                let here = (times[place], ids[place])
                if place > row && here <= (times[place - 1], ids[place - 1]) { ordered = false }
                if here < anchorPlace { before = place + 1 }
                if here <= anchorPlace { after = place + 1 }
            }
            let (part, local) = layout.place(slot)
            let keptRows = !ordered ? row..<end
                : (next ? after..<min(end, after + depth) : max(row, before - depth)..<before)
            for place in keptRows where ordered || (next ? (times[place], ids[place]) > anchorPlace : (times[place], ids[place]) < anchorPlace) {
                kept.parts[part].append(slot: Int32(local), time: times[place], id: ids[place])
            }
        }
        return kept
    }
}
