import Foundation
import HandzAnalysis
import HandzAnalyticsCore
import HandzColumnStore
import HandzQuery
import HandzSQLite
import HandzTestSupport
import Testing

/// Retention matrices (issue 35 §2) on the column engine give the numbers of the SQL on the log,
/// and D1, D7 and D30 read off a day matrix are the KPIs `retention_d1`, `_d7`, `_d30`.
@Suite struct ColumnRetentionAgreementTests {
    let data = SimulatedStore.shared
    let catalog = RepositoryCatalog.catalog
    static let dayMs: Int64 = 86_400_000

    func engines() throws -> (columns: ColumnRetention, log: StoreAnalysis, kpis: ColumnKPI) {
        let store = try ColumnStore(directory: data.columnsDirectory)
        let firstSeen = try InstallFirstSeenTimes(database: try SQLiteDatabase(path: data.path, readOnly: true))
        return (ColumnRetention(store: store, catalog: catalog, firstSeen: firstSeen), try StoreAnalysis(path: data.path, catalog: catalog),
                ColumnKPI(store: store, catalog: catalog, firstSeen: firstSeen))
    }

    @Test("days and weeks, per install and per user, returning on app_open, on a filtered union and on any event: the column engine agrees with the SQL on the log")
    func agrees() throws {
        let (columns, log, _) = try engines()
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        var checked = 0
        for interval in RetentionQuery.Interval.allCases {
            for actor in ActorKind.allCases {
                for returning in ["app_open", "flow_saved_success|practice_session_started[user_state=free|pro]", "any"] {
                    for (rangeFrom, rangeTo) in [(from, to), (from + 3 * Self.dayMs, from + 10 * Self.dayMs)] {
                        let query = RetentionQuery(fromMs: rangeFrom, toMs: rangeTo, interval: interval,
                                                   returning: try RetentionQuery.returning(returning, catalog: catalog), actor: actor)
                        let expected = try log.retention(query)
                        #expect(try columns.run(query) == expected, "\(interval) \(actor) \(returning)")
                        #expect(expected.overall.actors > 0)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 2 * 2 * 3 * 2)
    }

    @Test("D1, D7 and D30 read off the day matrix are the KPIs: numerator, denominator and left out, per install and per user, on two ranges")
    func curveIsTheKPIs() throws {
        let (columns, log, kpis) = try engines()
        let (from, to) = (SimulatedStore.fromMs, data.toMs)
        for actor in ActorKind.allCases {
            for (rangeFrom, rangeTo) in [(from, to), (from + 2 * Self.dayMs, from + 9 * Self.dayMs)] {
                let report = try columns.run(RetentionQuery(fromMs: rangeFrom, toMs: rangeTo, actor: actor))
                for (id, day) in [("retention_d1", 1), ("retention_d7", 7), ("retention_d30", 30)] {
                    let kpi = try #require(catalog.kpis.first { $0.id == id })
                    let query = KPIQuery(kpi: kpi, fromMs: rangeFrom, toMs: rangeTo, actor: actor)
                    let expected = try kpis.run(query)
                    #expect(expected == (try log.kpi(query)))
                    #expect(expected.numerator == report.overall.returned[day] && expected.denominator == report.overall.eligible[day]
                            && expected.leftOut == report.overall.leftOut(day), "\(id) \(actor)")
                }
            }
        }
    }

    @Test("a cohort by hand: its actors are the installs whose first app_open falls on its day, and day 0 is everyone who opened again within 24 h")
    func cohortByHand() throws {
        let (columns, _, _) = try engines()
        let database = try SQLiteDatabase(path: data.path, readOnly: true)
        let from = SimulatedStore.fromMs + 4 * Self.dayMs
        let report = try columns.run(RetentionQuery(fromMs: from, toMs: from + Self.dayMs))
        let cohort = try #require(report.cohorts.first)
        // Installs whose first stored app_open is that day (the simulated store keeps every first one).
        let firsts = "SELECT install_id, MIN(event_time_ms) AS t0 FROM events WHERE event_name = 'app_open' GROUP BY install_id"
        let actors = try database.scalar("SELECT COUNT(*) FROM (\(firsts)) WHERE t0 >= \(from) AND t0 < \(from + Self.dayMs)") ?? -1
        #expect(cohort.actors == actors && actors > 0)
        // Day 0: the install time's own app_open is a return in [t0, t0 + 24 h) (as the KPIs count day 0).
        #expect(cohort.returned[0] == actors && cohort.eligible[0] == actors)
        let dayOne = try database.scalar("""
            SELECT COUNT(DISTINCT f.install_id) FROM (\(firsts)) f JOIN events e ON e.install_id = f.install_id AND e.event_name = 'app_open'
            WHERE f.t0 >= \(from) AND f.t0 < \(from + Self.dayMs) AND e.event_time_ms >= f.t0 + \(Self.dayMs) AND e.event_time_ms < f.t0 + \(2 * Self.dayMs)
            """) ?? -1
        #expect(cohort.returned[1] == dayOne)
    }
}
