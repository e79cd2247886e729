import Foundation
import HandzAnalyticsCore
import HandzQuery

/// The statements `StoreAnalysis` runs, shown with their query plans on standard error when
/// `HANDZ_EXPLAIN` is set.
extension StoreAnalysis {
    static let explains = ProcessInfo.processInfo.environment["HANDZ_EXPLAIN"] != nil

    /// `sql` as it runs (the events it reads are named for the plan's readers).
    func planned(_ sql: String, events: [String]) throws -> String {
        if Self.explains {
            let plan = try database.prepare("EXPLAIN QUERY PLAN " + sql).query { "\($0.int64(0)) \($0.int64(1)) \($0.text(3) ?? "")" }
            FileHandle.standardError.write(Data((plan.joined(separator: "\n") + "\n").utf8))
        }
        return sql
    }
}

extension FunnelDefinition {
    /// Every event the funnel reads by name (a success on any event, F1's, reads by its filter
    /// too, which no name index serves).
    var eventNames: [String] { steps.flatMap(\.events) + (successCondition?.events ?? []) + exclusions.flatMap(\.events) }
}

extension KPIDefinition {
    /// Every event the KPI reads (app_open where the measure uses install time or activity).
    var eventNames: [String] {
        (KPISQLBuilder.readsActiveEvent(measure) ? ["app_open"] : [])
            + ([target, source, exclude].compactMap { $0 } + population).flatMap(\.events) + sums.map(\.event)
    }
}
