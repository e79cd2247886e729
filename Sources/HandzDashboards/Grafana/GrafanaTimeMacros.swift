import HandzAnalyticsCore
import HandzQuery

/// The builders' SQL with Grafana's time macros in place of the range: the builders take the
/// range as integers, so the SQL is built over two sentinel instants far from any real bound and
/// every integer literal derived from them (`from`, `to`, `to + window`) is replaced by the
/// matching macro expression. A literal near the sentinels that is none of these (a weekly KPI's
/// whole-week end) makes the export fail rather than ship a query with a fixed range.
public struct GrafanaTimeMacros: Sendable {
    public enum Flavor: String, Sendable, CaseIterable {
        case postgres, clickhouse
    }

    public let flavor: Flavor

    public init(flavor: Flavor) { self.flavor = flavor }

    public var dialect: SQLDialect { flavor == .postgres ? .postgres : .clickhouse }

    /// 2065-01-24 and 2068-03-27 (UTC): no event, window or day count is near them.
    static let fromSentinel: Int64 = 3_000_000_000_000
    static let toSentinel: Int64 = 3_100_000_000_000
    /// Any literal within this distance of a sentinel must be one of the known forms.
    static let guardBand: Int64 = 1_000_000_000_000

    /// The range start in epoch milliseconds, as a SQL expression over the dashboard's time picker.
    /// PostgreSQL: `$__timeFrom()` (an RFC 3339 literal); the ClickHouse plugin:
    /// `$__fromTime_ms` (`fromUnixTimestamp64Milli(…)`).
    public var fromExpression: String {
        switch flavor {
        case .postgres: "CAST(EXTRACT(EPOCH FROM CAST($__timeFrom() AS timestamptz)) * 1000 AS BIGINT)"
        case .clickhouse: "toUnixTimestamp64Milli($__fromTime_ms)"
        }
    }

    public var toExpression: String {
        switch flavor {
        case .postgres: "CAST(EXTRACT(EPOCH FROM CAST($__timeTo() AS timestamptz)) * 1000 AS BIGINT)"
        case .clickhouse: "toUnixTimestamp64Milli($__toTime_ms)"
        }
    }

    public struct Unbindable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Builds with the sentinels and puts the macros in.
    public func sql(_ build: (_ fromMs: Int64, _ toMs: Int64) throws -> String) throws -> String {
        let raw = try build(Self.fromSentinel, Self.toSentinel)
        var out = ""
        var digits = ""
        var previous: Character = " "
        func flush() throws {
            defer { digits = "" }
            guard !digits.isEmpty else { return }
            guard let value = Int64(digits), abs(value - Self.fromSentinel) < Self.guardBand || abs(value - Self.toSentinel) < Self.guardBand else {
                out += digits
                return
            }
            switch value {
            case Self.fromSentinel: out += "(\(fromExpression))"
            case Self.toSentinel: out += "(\(toExpression))"
            case (Self.toSentinel + 1)...: out += "(\(toExpression) + \(value - Self.toSentinel))"
            default: throw Unbindable(description: "the query depends on the range length (a literal between the range bounds); export it with a fixed range")
            }
        }
        for character in raw {
            if character.isASCII && character.isNumber && !(previous.isLetter || previous == "_") || (!digits.isEmpty && character.isASCII && character.isNumber) {
                digits.append(character)
            } else {
                try flush()
                out.append(character)
            }
            previous = character
        }
        try flush()
        return out
    }
}
