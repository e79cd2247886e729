import HandzAnalyticsCore
import HandzQuery

/// A retention matrix (issue 35 §2, `RetentionQuery`) on the column store: the `cohort_return`
/// KPI's rows and cohort (``ColumnKPI``'s scan and `Cohort`: install time with the first-seen
/// rule, the data's end) counted per cohort and period, exactly as `RetentionSQLBuilder`'s
/// statement groups them. The tests hold it to the SQL, and its curve to the KPIs.
public struct ColumnRetention {
    public let store: ColumnStore
    public let catalog: Catalog
    public let firstSeen: InstallFirstSeenTimes

    public init(store: ColumnStore, catalog: Catalog, firstSeen: InstallFirstSeenTimes) {
        self.store = store
        self.catalog = catalog
        self.firstSeen = firstSeen
    }

    public func run(_ query: RetentionQuery) throws -> RetentionReport {
        // The same checks, and so the same errors, as the SQL.
        _ = try RetentionSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        let kpi = ColumnKPI(store: store, catalog: catalog, firstSeen: firstSeen)
        let rows = try ScannedRows(kpi.request(query.cohortKPI), store: store)
        let cohort = try ColumnKPI.Cohort(rows, firstSeen: firstSeen, store: store, users: query.actor == .user ? try store.userMap() : nil)
        let (from, to) = (query.fromMs, query.toMs)
        let period = query.interval.milliseconds, periods = query.interval.periods
        var out: [RetentionReport.Row] = []
        // Cohort actors by (cohort, last eligible period).
        var sizes: [Int64: Int64] = [:]
        for actor in 0..<rows.installs.count {
            guard let start = cohort.start[actor], start >= from, start < to else { continue }
            let ended = cohort.dataEnd.map { ($0 - start) / period - 1 } ?? -1
            sizes[((start - from) / period) << 16 | (min(ended, Int64(periods - 1)) + 1), default: 0] += 1
        }
        for (key, count) in sizes {
            out.append(RetentionReport.Row(kind: 0, cohort: Int(key >> 16), period: Int(key & 0xFFFF) - 1, count: count))
        }
        // Each actor once per period it returned in, when that period ended within the data: one
        // bit per period in each actor's words (a set of (actor, period) pairs hashed every
        // returning row, 10 % of `--returning any`, perf).
        let words = (periods + 63) / 64
        var hits = [UInt64](repeating: 0, count: rows.installs.count * words)
        for row in 0..<rows.count where rows.has(row, ColumnKPI.Bit.target) {
            let actor = Int(rows.actor[row]), time = rows.time[row]
            guard let start = cohort.start[actor], start >= from, start < to, time >= start, time < start + Int64(periods) * period,
                  let end = cohort.dataEnd else { continue }
            let n = Int((time - start) / period)
            guard start + Int64(n + 1) * period <= end else { continue }
            hits[actor * words + n / 64] |= 1 << UInt64(n % 64)
        }
        var returned: [Int64: Int64] = [:]
        for actor in 0..<rows.installs.count {
            for word in 0..<words {
                var bits = hits[actor * words + word]
                guard bits != 0, let start = cohort.start[actor] else { continue }
                while bits != 0 {
                    let n = Int64(word * 64 + bits.trailingZeroBitCount)
                    returned[((start - from) / period) << 16 | n, default: 0] += 1
                    bits &= bits - 1
                }
            }
        }
        for (key, count) in returned {
            out.append(RetentionReport.Row(kind: 1, cohort: Int(key >> 16), period: Int(key & 0xFFFF), count: count))
        }
        return RetentionReport.assemble(query, rows: out)
    }
}
