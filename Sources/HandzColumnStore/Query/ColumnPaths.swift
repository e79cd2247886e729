import HandzAnalyticsCore
import HandzQuery

/// Paths (issue 35 §4, `PathQuery`) on the column store, as `PathSQLBuilder`'s statement counts
/// them: per session (install, session id), its first anchor event in the range by (time, id), then
/// its next (previous) events in that order, the first `depth` of them, and the sessions per path.
/// Every event of the store is read, with its session and id: a session's other events may lie
/// outside the range. The tests hold it to the SQL.
public struct ColumnPaths {
    public let store: ColumnStore
    public let catalog: Catalog

    public init(store: ColumnStore, catalog: Catalog) {
        self.store = store
        self.catalog = catalog
    }

    static let anchorBit: UInt32 = 1

    public func run(_ query: PathQuery) throws -> PathReport {
        // The same checks, and so the same errors, as the SQL.
        _ = try PathSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        var request = ScanRequest()
        request.events = nil
        request.matchers.add(bit: Self.anchorBit, events: query.anchor.events, filters: query.anchor.filters, catalog: catalog, strings: store.strings)
        request.withSessions = true
        request.withIDs = true
        let rows = try ScannedRows(request, store: store)
        // 1. Each session's first anchor in the range.
        var anchors: [Int64: (time: Int64, id: UUIDWords)] = [:]
        for row in 0..<rows.count where rows.has(row, Self.anchorBit) && rows.session[row] >= 0 && rows.time[row] >= query.fromMs && rows.time[row] < query.toMs {
            let session = Self.key(rows, row)
            let here = (time: rows.time[row], id: rows.ids[row])
            if let known = anchors[session], (known.time, known.id) < (here.time, here.id) { continue }
            anchors[session] = here
        }
        // 2. Each such session's events on the path's side of its anchor.
        let next = query.direction == .next
        var sides: [Int64: [(time: Int64, id: UUIDWords, event: Int32)]] = [:]
        for row in 0..<rows.count where rows.session[row] >= 0 {
            let session = Self.key(rows, row)
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
        return PathReport(query: query, rows: counts.map { PathReport.Row(steps: $0.key, sessions: $0.value) })
    }

    /// A row's session, with its install: the SQL partitions by both.
    static func key(_ rows: ScannedRows, _ row: Int) -> Int64 {
        Int64(rows.actor[row]) << 32 | Int64(rows.session[row])
    }
}
