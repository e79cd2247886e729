import HandzAnalyticsCore
import HandzQuery

extension StoreAnalysis {
    /// A retention matrix (issue 35 §2) by the SQL `sql retention --dialect sqlite` prints, run on
    /// the log: the reference `ColumnRetention` is held to.
    public func retention(_ query: RetentionQuery) throws -> RetentionReport {
        let sql = try RetentionSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        let rows = try database.prepare(try planned(sql, events: query.returning.events + ["app_open"])).query { row in
            RetentionReport.Row(kind: Int(row.int64(0)), cohort: Int(row.int64(1)), period: Int(row.int64(2)), count: row.int64(3))
        }
        return RetentionReport.assemble(query, rows: rows)
    }
}
