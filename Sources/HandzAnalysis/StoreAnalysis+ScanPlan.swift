import Foundation
import HandzAnalyticsCore
import HandzQuery

/// How SQLite reads the log's `events` for one query (the analytical layer needs no plan). With no statistics the planner always takes the
/// `(event_name, event_time_ms)` index for `event_name IN (…)`, which costs a b-tree seek per row;
/// for frequent events (app_open, screen_viewed) a sequential scan of the table is several times
/// faster, and far faster when the file is not in the page cache. So when the query's events are
/// a large share of the table, `e.event_name` is written `+e.event_name` — SQLite's no-op unary
/// plus, which only stops the index from being used. Results are unchanged.
extension StoreAnalysis {
    /// Above this share of all stored events a full scan is cheaper (seek ≈ 20× a sequential row).
    static let scanShare = 0.05

    /// `HANDZ_EXPLAIN` set: each statement's query plan goes to standard error (HandzStore docs, "The analytical layer", "Reading it").
    static let explains = ProcessInfo.processInfo.environment["HANDZ_EXPLAIN"] != nil

    func planned(_ sql: String, events: [String]) throws -> String {
        if Self.explains {
            let plan = try database.prepare("EXPLAIN QUERY PLAN " + sql).query { "\($0.int64(0)) \($0.int64(1)) \($0.text(3) ?? "")" }
            FileHandle.standardError.write(Data((plan.joined(separator: "\n") + "\n").utf8))
        }
        // The analytical layer is clustered by event name: its key ranges are always the way in.
        guard source == .log else { return sql }
        let counts = try eventCounts()
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return sql }
        let read = Set(events).reduce(Int64(0)) { $0 + (counts[$1] ?? 0) }
        guard Double(read) / Double(total) > Self.scanShare else { return sql }
        return sql.replacingOccurrences(of: "e.event_name IN (", with: "+e.event_name IN (")
    }

    /// Stored events per name (a covering scan of the name index), computed once per store.
    func eventCounts() throws -> [String: Int64] {
        if let cached = countsCache.value { return cached }
        var counts: [String: Int64] = [:]
        let rows: [(String, Int64)] = try database.prepare("SELECT event_name, COUNT(*) FROM events GROUP BY event_name").query { ($0.text(0) ?? "", $0.int64(1)) }
        for (name, count) in rows { counts[name] = count }
        countsCache.value = counts
        return counts
    }
}

/// A per-store memo (StoreAnalysis is a class used from one thread at a time).
final class EventCountsCache {
    var value: [String: Int64]?
}

extension FunnelDefinition {
    /// Every event the funnel reads by name (a success on any event, F1's, reads by its filter
    /// too, which no name index serves).
    var eventNames: [String] { steps.flatMap(\.events) + (successCondition?.events ?? []) }
}

extension KPIDefinition {
    /// Every event the KPI reads (app_open where the measure uses install time or activity).
    var eventNames: [String] {
        (KPISQLBuilder.readsActiveEvent(measure) ? ["app_open"] : [])
            + ([target, source, exclude].compactMap { $0 } + population).flatMap(\.events) + sums.map(\.event)
    }
}
