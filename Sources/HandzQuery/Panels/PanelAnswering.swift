/// An engine that answers some panel queries itself — the column store (issue 33) — and leaves
/// the others to the SQL path: `answer` returns nil for a query it does not answer. The
/// dashboard runners try it first for every source of every panel.
public protocol PanelAnswering: Sendable {
    func answer(_ query: PanelQuery) throws -> SourceData.Result?
}
