import HandzAnalyticsCore
import HandzQuery

extension StoreAnalysis {
    /// Paths (issue 35 §4) by the SQL `sql paths --dialect sqlite` prints, run on the log: the
    /// reference `ColumnPaths` is held to.
    public func paths(_ query: PathQuery) throws -> PathReport {
        let sql = try PathSQLBuilder(catalog: catalog, dialect: .sqlite).sql(query)
        let depth = Int32(query.depth)
        let rows = try database.prepare(try planned(sql, events: query.anchor.events)).query { row in
            PathReport.Row(steps: (0..<depth).map { row.isNull($0) ? nil : row.text($0) }, sessions: row.int64(depth))
        }
        return PathReport(query: query, rows: rows)
    }
}
