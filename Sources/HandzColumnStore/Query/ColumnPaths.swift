import HandzAnalyticsCore
import HandzQuery

/// Paths (issue 35 §4, `PathQuery`) on the column store, as `PathSQLBuilder`'s statement counts
/// them: per session (install, session id), its first anchor event in the range by (time, id), then
/// its next (previous) events in that order, the first `depth` of them, and the sessions per path.
/// A session's other events may lie outside the range, so they are read whatever their time. The
/// tests hold both walks to the SQL.
///
/// Two walks. The common one reads the anchor's chunks first and then keeps only the rows of
/// anchored sessions (`walkFromAnchors(_:)`, ColumnPaths+Anchored.swift); it keys a session by its
/// id alone, which is exact when each session id belongs to one install — always so for the app's
/// random session UUIDs. A store where an anchored session's id also appears under another install
/// takes the general walk (`walkByHash(_:_:)`), which reads every event and keys sessions by
/// (install, session) in hash tables, as the SQL partitions.
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
        let counts = try walkFromAnchors(query) ?? Self.walkByHash(try ScannedRows(Self.everyEvent(query, store: store, catalog: catalog), store: store), query)
        return PathReport(query: query, rows: counts.map { PathReport.Row(steps: $0.key, sessions: $0.value) })
    }

    /// What the general walk reads: every event of the store with its install, session and id,
    /// the anchor's rows marked.
    static func everyEvent(_ query: PathQuery, store: ColumnStore, catalog: Catalog) -> ScanRequest {
        var request = ScanRequest()
        request.events = nil
        request.matchers.add(bit: anchorBit, events: query.anchor.events, filters: query.anchor.filters, catalog: catalog, strings: store.strings)
        request.withSessions = true
        request.withIDs = true
        return request
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
