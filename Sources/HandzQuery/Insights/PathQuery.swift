import HandzAnalyticsCore

/// Paths (issue 35 §4): what people do right after (or right before) an event, within the same
/// session — "which event do people do instead of saving a flow?". Pure data; the SQL is
/// ``PathSQLBuilder``'s, the column engine's walk `HandzColumnStore.ColumnPaths`, and both give a
/// ``PathReport``.
///
/// - **The anchor**: one series in the funnel explorer's step form (events joined by `|`, closed-set
///   filters in brackets). Per session (`install_id`, `session_id`), its **first** anchor event in
///   `[fromMs, toMs)` by device time, then event id (CH33 §5.1's order): one path per session, so
///   counts are sessions and the paths' counts add up to the sessions that had the anchor.
/// - **The path**: the session's next `depth` events after the anchor (`.next`), or its previous
///   `depth` events before it, nearest first (`.previous`), in the same order, whatever their name
///   and time (the session bounds them). A session that ends (starts) sooner has a shorter path,
///   shown as "(session ended)" ("(session started)") after its last step.
/// - **Depth** 1 to ``maxDepth``.
public struct PathQuery: Sendable, Equatable {
    public enum Direction: String, Sendable, CaseIterable {
        case next, previous
    }

    public var anchor: EventMatch
    public var direction: Direction
    public var depth: Int
    public var fromMs: Int64
    public var toMs: Int64

    public static let maxDepth = 5

    public init(anchor: EventMatch, direction: Direction = .next, depth: Int = 3, fromMs: Int64, toMs: Int64) {
        self.anchor = anchor
        self.direction = direction
        self.depth = depth
        self.fromMs = fromMs
        self.toMs = toMs
    }

    /// The anchor of `text`: one series (``TrendQuery/series(_:catalog:)``).
    public static func anchor(_ text: String, catalog: Catalog) throws(QueryError) -> EventMatch {
        let series = try TrendQuery.series(text, catalog: catalog)
        guard series.count == 1 else { throw .invalidFunnel("a path starts from one series (events joined by |)") }
        return series[0]
    }

    public func validate(_ catalog: Catalog) throws(QueryError) {
        guard fromMs < toMs else { throw .invalidRange("from must be before to") }
        guard (1...Self.maxDepth).contains(depth) else { throw .invalidRange("a path is 1 to \(Self.maxDepth) steps deep") }
        guard !anchor.events.isEmpty else { throw .invalidFunnel("the anchor names at least one event") }
        for name in anchor.events {
            try PropertyAccess.checkIdentifier(name)
            guard catalog.event(named: name)?.isEnabled == true else { throw .invalidFunnel("every event must be an enabled event of the catalog") }
        }
    }
}
