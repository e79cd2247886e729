import HandzAnalyticsCore

/// A dashboard of CH33 §7 as data (`dashboards/*.yaml`): its panels, one per §7 bullet.
public struct DashboardDefinition: Sendable, Equatable {
    /// The file stem, e.g. `launch_health`; also the page name and the Grafana uid suffix.
    public var id: String
    public var title: String
    /// The spec section, e.g. `CH33 §7.1`.
    public var spec: String
    public var description: String
    public var panels: [PanelDefinition]

    public init(id: String, title: String, spec: String, description: String = "", panels: [PanelDefinition] = []) {
        self.id = id
        self.title = title
        self.spec = spec
        self.description = description
        self.panels = panels
    }
}

/// One panel: the §7 bullet it answers, the chart, and where its numbers come from.
public struct PanelDefinition: Sendable, Equatable {
    public var id: String
    public var title: String
    /// The §7 bullet, as the spec writes it.
    public var bullet: String
    public var chart: ChartKind
    public var sources: [PanelSource]
    /// What the value axis measures, e.g. `sessions` or `% of installs`.
    public var unit: String
    /// `line`: which counts of `daily_counts` to draw.
    public var counts: [EventQuery.Count]
    /// `line`: also draw the running total from `from`.
    public var cumulative: Bool
    /// `bars`: how many rows to show (the rest are summed into "other").
    public var limit: Int
    /// How the panel reads the bullet, when it approximates it.
    public var note: String?
    /// What the catalog cannot supply for this bullet (shown on the panel, listed in the HandzDashboards docs, "Dashboard definitions").
    public var missing: String?

    public init(id: String, title: String, bullet: String, chart: ChartKind, sources: [PanelSource] = [], unit: String = "",
                counts: [EventQuery.Count] = [.events], cumulative: Bool = false, limit: Int = 10, note: String? = nil, missing: String? = nil) {
        self.id = id
        self.title = title
        self.bullet = bullet
        self.chart = chart
        self.sources = sources
        self.unit = unit
        self.counts = counts
        self.cumulative = cumulative
        self.limit = limit
        self.note = note
        self.missing = missing
    }
}

/// The chart a panel draws.
public enum ChartKind: String, Sendable, CaseIterable {
    /// Funnel bars with step-to-step drop-off %.
    case funnel
    /// Daily time series of counts (`daily_counts`).
    case line
    /// Daily time series of a rate in % (`daily_ratio`, `session_share`).
    case rate
    /// Horizontal bars of the top values (`top_values`).
    case bars
    /// Histogram with quantile markers (`histogram`, or a KPI distribution).
    case histogram
    /// Single values: KPIs and `followed_by` conversions, as labelled bars (rates) or figures.
    case stat

    /// Whether a source of this shape can be drawn by this chart.
    public func accepts(_ source: PanelSource) -> Bool {
        switch (self, source.kind) {
        case (.funnel, .funnel): true
        case (.stat, .kpi(_, nil)): true
        case (.histogram, .kpi): true
        case (.stat, .query(let query)): query.kind == .followedBy
        case (.line, .query(let query)): query.kind == .dailyCounts
        case (.rate, .query(let query)): query.kind == .dailyRatio || query.kind == .sessionShare
        case (.bars, .query(let query)): query.kind == .topValues
        case (.histogram, .query(let query)): query.kind == .histogram
        default: false
        }
    }
}

/// Where a panel's numbers come from: a funnel (§5.1), a KPI (§5.2) or a named event query.
public struct PanelSource: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A funnel of `catalog/funnels.yaml`, with an optional window (seconds).
        case funnel(id: String, windowSeconds: Int64?)
        /// A KPI of `catalog/kpis.yaml`; for a distribution, optionally another integer property
        /// of the same events (nodes_count instead of branches_count).
        case kpi(id: String, property: String?)
        case query(EventQuery)
    }

    /// The series' name in the chart and its table.
    public var label: String
    public var kind: Kind

    public init(label: String, kind: Kind) {
        self.label = label
        self.kind = kind
    }
}
