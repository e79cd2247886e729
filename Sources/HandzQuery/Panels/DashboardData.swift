import HandzAnalyticsCore

/// A dashboard's numbers over one range: what `dashboard render` draws. Assembled by
/// `HandzAnalysis` from the funnel, KPI and event-query reports; drawn by `HandzDashboards`.
public struct DashboardData: Sendable, Equatable {
    public var dashboard: DashboardDefinition
    public var fromMs: Int64
    public var toMs: Int64
    public var panels: [PanelData]

    public init(dashboard: DashboardDefinition, fromMs: Int64, toMs: Int64, panels: [PanelData]) {
        self.dashboard = dashboard
        self.fromMs = fromMs
        self.toMs = toMs
        self.panels = panels
    }
}

extension DashboardData {
    /// Puts under each funnel panel what `notes` says of its funnels (once per note): what some
    /// catalog versions in the data could not send (docs/catalog-releases.md, "Analysis across
    /// versions"). The static report and the served pages both call it.
    public mutating func addFunnelNotes(_ notes: (FunnelDefinition) -> [String]) {
        for panel in panels.indices {
            var added: [String] = []
            for source in panels[panel].sources {
                guard case .funnel(let report) = source.result else { continue }
                for note in notes(report.query.funnel) where !added.contains(note) { added.append(note) }
            }
            panels[panel].notes = added
        }
    }
}

public struct PanelData: Sendable, Equatable {
    public var panel: PanelDefinition
    /// One per source, in the panel's order.
    public var sources: [SourceData]
    /// What some catalog versions in the range could not send, for the panel's funnels
    /// (docs/catalog-releases.md, "Analysis across versions"); shown under the title.
    public var notes: [String]

    public init(panel: PanelDefinition, sources: [SourceData], notes: [String] = []) {
        self.panel = panel
        self.sources = sources
        self.notes = notes
    }
}

public struct SourceData: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        case funnel(FunnelReport)
        case kpi(KPIReport)
        case query(EventQueryResult)
    }

    public var label: String
    public var result: Result
    /// Why the served page's breakdown does not apply to this source, if it does not
    /// (``PanelQuery/resolve(_:catalog:fromMs:toMs:controls:)``).
    public var note: String?
    /// The query that ran, as ``PanelQuery`` resolved it (with the controls applied); nil when
    /// the data was assembled without one.
    public var query: PanelQuery?

    public init(label: String, result: Result, note: String? = nil, query: PanelQuery? = nil) {
        self.label = label
        self.result = result
        self.note = note
        self.query = query
    }

    /// The event query that ran, for event-query sources.
    public var eventQuery: EventQuery? {
        if case .events(let query, _, _)? = query { return query }
        return nil
    }
}

extension PanelSource {
    /// The KPI a `kpi` source runs: the catalog's, with the distribution's property replaced
    /// when the panel names another one.
    public static func kpi(_ definition: KPIDefinition, property: String?) -> KPIDefinition {
        var kpi = definition
        if let property { kpi.property = property }
        return kpi
    }
}
