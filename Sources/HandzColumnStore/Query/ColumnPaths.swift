import HandzAnalyticsCore
import HandzQuery

/// Paths (issue 35 §4, `PathQuery`) on the column store, as `PathSQLBuilder`'s statement counts
/// them: per session (install, session id), its first anchor event in the range by (time, id), then
/// its next (previous) events in that order, the first `depth` of them, and the sessions per path.
/// Every event of the store is read, with its session and id: a session's other events may lie
/// outside the range. The tests hold it to the SQL.
///
/// The walk is three passes over flat arrays indexed by the scan's dense session numbers: each
/// session's first anchor, then for each anchored session the `depth` nearest events on the path's
/// side kept in a small sorted buffer (no list of every event per session, no sort), then one
/// integer per path (12 bits per step) counted. It needs each session number to belong to one
/// install — always so for the app's random session UUIDs; a store where two installs share a
/// session id takes the general walk (`walkByHash(_:_:)`), which keys sessions by (install,
/// session) in hash tables, as the SQL partitions.
public struct ColumnPaths {
    public let store: ColumnStore
    public let catalog: Catalog

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    static let anchorBit: UInt32 = 1
    /// Bits per step of a packed path: an event's index + 1, 0 for none.
    static let stepBits = 12

    public func run(_ query: PathQuery) throws -> PathReport {
        // The same checks, and so the same errors, as the SQL.
        _ = try PathSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        var request = ScanRequest()
        request.events = nil
        request.matchers.add(bit: Self.anchorBit, events: query.anchor.events, filters: query.anchor.filters, catalog: catalog, strings: store.strings)
        request.withSessions = true
        request.withIDs = true
        let rows = try ScannedRows(request, store: store)
        let counts = Self.sessionsHaveOneInstall(rows) && rows.eventNames.count < (1 << Self.stepBits) - 1
            ? Self.walkBySessionNumber(rows, query) : Self.walkByHash(rows, query)
        return PathReport(query: query, rows: counts.map { PathReport.Row(steps: $0.key, sessions: $0.value) })
    }

    /// Whether every session number's rows share one install (what `walkBySessionNumber(_:_:)` needs).
    static func sessionsHaveOneInstall(_ rows: ScannedRows) -> Bool {
        var owner = [Int32](repeating: -1, count: rows.sessions.count)
        for row in 0..<rows.count {
            let session = Int(rows.session[row])
            guard session >= 0 else { continue }
            if owner[session] < 0 {
                owner[session] = rows.actor[row]
            } else if owner[session] != rows.actor[row] {
                return false
            }
        }
        return true
    }

    /// The walk over arrays by session number.
    static func walkBySessionNumber(_ rows: ScannedRows, _ query: PathQuery) -> [[String?]: Int64] {
        let sessionCount = rows.sessions.count
        // 1. Each session's first anchor in the range (time .max: none).
        var anchorTime = [Int64](repeating: .max, count: sessionCount)
        var anchorID = [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: sessionCount)
        for row in 0..<rows.count where rows.has(row, anchorBit) && rows.session[row] >= 0 && rows.time[row] >= query.fromMs && rows.time[row] < query.toMs {
            let session = Int(rows.session[row])
            if (rows.time[row], rows.ids[row]) < (anchorTime[session], anchorID[session]) {
                (anchorTime[session], anchorID[session]) = (rows.time[row], rows.ids[row])
            }
        }
        // 2. Each anchored session's `depth` nearest events on the path's side, nearest first.
        var slot = [Int32](repeating: -1, count: sessionCount)
        var anchored = 0
        for session in 0..<sessionCount where anchorTime[session] != .max {
            slot[session] = Int32(anchored)
            anchored += 1
        }
        let depth = query.depth
        let next = query.direction == .next
        var nearTime = [Int64](repeating: 0, count: anchored * depth)
        var nearID = [UUIDWords](repeating: UUIDWords(high: 0, low: 0), count: anchored * depth)
        var nearEvent = [Int32](repeating: 0, count: anchored * depth)
        var filled = [UInt8](repeating: 0, count: anchored)
        /// Whether `a` lies nearer the anchor than `b` on the path's side.
        @inline(__always) func nearer(_ a: (Int64, UUIDWords), _ b: (Int64, UUIDWords)) -> Bool { next ? a < b : a > b }
        for row in 0..<rows.count {
            let session = Int(rows.session[row])
            guard session >= 0, slot[session] >= 0 else { continue }
            let here = (rows.time[row], rows.ids[row])
            guard nearer((anchorTime[session], anchorID[session]), here) else { continue }
            let base = Int(slot[session]) * depth
            var count = Int(filled[base / depth])
            if count == depth {
                // Full: only an event nearer than the farthest kept gets in.
                guard nearer(here, (nearTime[base + depth - 1], nearID[base + depth - 1])) else { continue }
                count -= 1
            }
            var place = base + count
            while place > base && nearer(here, (nearTime[place - 1], nearID[place - 1])) {
                (nearTime[place], nearID[place], nearEvent[place]) = (nearTime[place - 1], nearID[place - 1], nearEvent[place - 1])
                place -= 1
            }
            (nearTime[place], nearID[place], nearEvent[place]) = (here.0, here.1, rows.event[row])
            filled[base / depth] = UInt8(count + 1)
        }
        // 3. Each session's path as one integer, counted; then named.
        var packed: [UInt64: Int64] = [:]
        for session in 0..<anchored {
            var key: UInt64 = 0
            for step in 0..<Int(filled[session]) {
                key |= UInt64(nearEvent[session * depth + step] + 1) << (UInt64(step * stepBits))
            }
            packed[key, default: 0] += 1
        }
        var counts: [[String?]: Int64] = [:]
        for (key, sessions) in packed {
            let steps = (0..<depth).map { step -> String? in
                let code = Int((key >> UInt64(step * stepBits)) & ((1 << UInt64(stepBits)) - 1))
                return code == 0 ? nil : rows.eventNames[code - 1]
            }
            counts[steps] = sessions
        }
        return counts
    }

    /// The general walk: sessions keyed by (install, session) in hash tables, each session's side
    /// events listed and sorted.
    static func walkByHash(_ rows: ScannedRows, _ query: PathQuery) -> [[String?]: Int64] {
        // 1. Each session's first anchor in the range.
        var anchors: [Int64: (time: Int64, id: UUIDWords)] = [:]
        for row in 0..<rows.count where rows.has(row, anchorBit) && rows.session[row] >= 0 && rows.time[row] >= query.fromMs && rows.time[row] < query.toMs {
            let session = key(rows, row)
            let here = (time: rows.time[row], id: rows.ids[row])
            if let known = anchors[session], (known.time, known.id) < (here.time, here.id) { continue }
            anchors[session] = here
        }
        // 2. Each such session's events on the path's side of its anchor.
        let next = query.direction == .next
        var sides: [Int64: [(time: Int64, id: UUIDWords, event: Int32)]] = [:]
        for row in 0..<rows.count where rows.session[row] >= 0 {
            let session = key(rows, row)
            guard let anchor = anchors[session] else { continue }
            let here = (rows.time[row], rows.ids[row])
            guard next ? here > (anchor.time, anchor.id) : here < (anchor.time, anchor.id) else { continue }
            sides[session, default: []].append((rows.time[row], rows.ids[row], rows.event[row]))
        }
        // 3. The first `depth` of them, nearest first, and the sessions per path.
        var counts: [[String?]: Int64] = [:]
        for session in anchors.keys {
            var events = sides[session] ?? []
            events.sort { next ? ($0.time, $0.id) < ($1.time, $1.id) : ($0.time, $0.id) > ($1.time, $1.id) }
            var steps = events.prefix(query.depth).map { Optional(rows.eventNames[Int($0.event)]) }
            while steps.count < query.depth { steps.append(nil) }
            counts[steps, default: 0] += 1
        }
        return counts
    }

    /// A row's session, with its install: the SQL partitions by both.
    static func key(_ rows: ScannedRows, _ row: Int) -> Int64 {
        Int64(rows.actor[row]) << 32 | Int64(rows.session[row])
    }
}
