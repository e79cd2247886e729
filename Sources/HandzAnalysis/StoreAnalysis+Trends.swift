import HandzAnalyticsCore
import HandzQuery

extension StoreAnalysis {
    /// A trend (issue 35 §1) by the SQL `sql trend --dialect sqlite` prints, run on the log: the
    /// reference the column engine (`ColumnTrend`) is held to, and the answer on a store of the
    /// SQLite log whose column copy cannot answer. With a breakdown limit the SQL runs twice
    /// (`TrendReport/run(_:_:)`).
    public func trend(_ query: TrendQuery) throws -> TrendReport {
        let builder = TrendSQLBuilder(catalog: catalog, dialect: .sqlite)
        return try TrendReport.run(query) { kept in
            try database.prepare(try planned(try builder.sql(query, kept: kept), events: query.events)).query { row in
                TrendReport.Row(series: Int(row.int64(0)), period: Int(row.int64(1)), value: row.isNull(2) ? nil : row.text(2),
                                isOther: row.int64(3) != 0, count: row.int64(4))
            }
        }
    }
}
