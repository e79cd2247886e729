import HandzAnalyticsCore
import HandzQuery

/// The controls of a served dashboard or explorer page (issue 16 §2–3), read from its URL's
/// query: plain GET forms, so every view is a URL that can be shared or bookmarked.
///
/// Parsing is strict: a parameter the page does not take, a repeated one, or a value outside its
/// closed set is refused with a ``SiteRefusal`` that names the parameter and never repeats the
/// value (CH33 §1: nothing a client sent is echoed; a crafted `breakdown=<script>` gets a 400 with
/// a fixed text). Empty values mean "not set", as a form with blank fields sends them.
public struct SiteControls: Sendable, Hashable {
    /// The range presets. `Nd` is the last N UTC days that end with the day of the last stored
    /// event (on a live store, today), so a copy of old data opens on its data, not on an empty
    /// present; `all` is every day with data; `custom` reads `from` and `to`. "Stored event" here
    /// leaves out events dated after their receipt (`StoreAnalysis.eventTimeRange`, issue 32 §2):
    /// one phone with a wrong clock moves no preset.
    public enum RangePreset: String, Sendable, CaseIterable {
        case all
        case last7 = "7d"
        case last30 = "30d"
        case last90 = "90d"
        case custom

        public var days: Int64? {
            switch self {
            case .last7: 7
            case .last30: 30
            case .last90: 90
            case .all, .custom: nil
            }
        }

        public var label: String {
            switch self {
            case .all: "All days with data"
            case .last7: "Last 7 days of data"
            case .last30: "Last 30 days of data"
            case .last90: "Last 90 days of data"
            case .custom: "Custom (from – to)"
            }
        }
    }

    public var range: RangePreset = .last30
    /// Custom range: the first day and the last day, both inclusive (epoch ms at UTC midnight).
    public var fromDayMs: Int64?
    public var toDayMs: Int64?
    /// Compare with the previous period of the same length.
    public var compare = false
    public var panel = PanelControls()
    /// The explorer's funnel, in `AdHocFunnel`'s text form (checked against the catalog).
    public var steps: String?
    /// The explorer's funnel modes (issue 35 §3): the order of its steps, its exclusion steps in
    /// `AdHocFunnel.exclusion`'s text form (`exclude`, repeatable), and conversion over time
    /// (`by=day`: one funnel per UTC day of entry).
    public var order = FunnelOrder.sequential
    public var exclusions: [String] = []
    public var byEntryDay = false
    /// The trends page's series, in `TrendQuery`'s text form (checked against the catalog), what
    /// it counts and per which period (issue 35 §1).
    public var series: String?
    public var measure = TrendQuery.Measure.events
    public var interval = TrendQuery.Interval.day
    /// The retention page's returning series (`RetentionQuery.returning`: a series or `any`;
    /// nil: app_open, the KPIs').
    public var returning: String?
    /// The paths page's anchor (`PathQuery.anchor`), direction and depth.
    public var anchor: String?
    public var direction = PathQuery.Direction.next
    public var depth = 3

    public init() {}

    /// Which page the controls are for: each takes the common controls and its own.
    public enum Page: Sendable {
        case dashboard, explorer, trends, retention, paths

        /// The parameters only this page takes.
        var ownParameters: Set<String> {
            switch self {
            case .dashboard: []
            case .explorer: ["steps", "step", "order", "exclude", "by"]
            case .trends: ["series", "event", "measure", "interval"]
            case .retention: ["returning", "interval"]
            case .paths: ["anchor", "direction", "depth"]
            }
        }
    }

    /// The longest range a page computes (ten years, as `dashboard render`).
    public static let maxDays: Int64 = 3660
    /// The longest funnel window the controls take: 90 days.
    public static let maxWindowSeconds: Int64 = 90 * 86_400
    static let dayMs: Int64 = 86_400_000

    /// The parameters the pages take; `step` (the explorer's step pickers) and `event` (the trends
    /// page's) may repeat.
    public static let parameterNames = ["range", "from", "to", "compare", "breakdown", "actor", "window", "steps", "step", "order", "exclude", "by",
                                        "series", "event", "measure", "interval", "returning", "anchor", "direction", "depth"]
    static let pageParameters: Set<String> = Page.explorer.ownParameters.union(Page.trends.ownParameters).union(Page.retention.ownParameters).union(Page.paths.ownParameters)

    /// Reads `items` (decoded name/value pairs, in order). `breakdowns` are the properties a
    /// breakdown may name (``breakdownOptions(_:)``); `catalog` checks the explorer's steps and
    /// the trends page's series.
    public static func parse(_ items: [(name: String, value: String)], breakdowns: [String], catalog: Catalog, page: Page) throws(SiteRefusal) -> SiteControls {
        var controls = SiteControls()
        var seen = Set<String>()
        var pickedSteps: [String] = []
        var pickedSeries: [String] = []
        var fromText: String?, toText: String?
        for (name, value) in items {
            guard parameterNames.contains(name), !pageParameters.contains(name) || page.ownParameters.contains(name) else { throw .unknownParameter }
            guard name == "step" || name == "event" || name == "exclude" || seen.insert(name).inserted else { throw .repeated(name) }
            guard value.utf8.count <= 4_096 else { throw .invalid(name) }
            if value.isEmpty { continue }
            switch name {
            case "range":
                guard let preset = RangePreset(rawValue: value) else { throw .invalid(name) }
                controls.range = preset
            case "from": fromText = value
            case "to": toText = value
            case "compare":
                guard value == "previous" else { throw .invalid(name) }
                controls.compare = true
            case "breakdown":
                guard breakdowns.contains(value) else { throw .invalid(name) }
                controls.panel.breakdown = value
            case "actor":
                guard let actor = ActorKind(rawValue: value) else { throw .invalid(name) }
                controls.panel.actor = actor
            case "window":
                guard let seconds = windowSeconds(value), seconds <= maxWindowSeconds else { throw .invalid(name) }
                controls.panel.windowSeconds = seconds
            case "steps": controls.steps = value
            case "order":
                guard let order = FunnelOrder(rawValue: value) else { throw .invalid(name) }
                controls.order = order
            case "exclude":
                guard controls.exclusions.count < FunnelModes.maxExclusions else { throw .invalid(name) }
                controls.exclusions.append(value)
            case "by":
                guard value == "day" else { throw .invalid(name) }
                controls.byEntryDay = true
            case "series": controls.series = value
            case "measure":
                guard let measure = TrendQuery.Measure(rawValue: value) else { throw .invalid(name) }
                controls.measure = measure
            case "interval":
                // Retention has days and weeks only.
                guard let interval = TrendQuery.Interval(rawValue: value), page != .retention || interval != .month else { throw .invalid(name) }
                controls.interval = interval
            case "returning":
                do {
                    _ = try RetentionQuery.returning(value, catalog: catalog)
                } catch {
                    throw .retention(error.description)
                }
                controls.returning = value
            case "anchor":
                do {
                    _ = try PathQuery.anchor(value, catalog: catalog)
                } catch {
                    throw .paths(error.description)
                }
                controls.anchor = value
            case "direction":
                guard let direction = PathQuery.Direction(rawValue: value) else { throw .invalid(name) }
                controls.direction = direction
            case "depth":
                guard let depth = Int(value), (1...PathQuery.maxDepth).contains(depth), value.utf8.count == 1 else { throw .invalid(name) }
                controls.depth = depth
            case "event":
                guard catalog.event(named: value)?.isEnabled == true else { throw .invalid(name) }
                pickedSeries.append(value)
            default:
                guard catalog.event(named: value)?.isEnabled == true else { throw .invalid("step") }
                pickedSteps.append(value)
            }
        }
        if controls.range == .custom {
            guard let fromText, let toText else { throw .invalid(fromText == nil ? "from" : "to") }
            guard let from = day(fromText) else { throw .invalid("from") }
            guard let to = day(toText) else { throw .invalid("to") }
            guard from <= to, (to - from) / dayMs < maxDays else { throw .invalidRange }
            (controls.fromDayMs, controls.toDayMs) = (from, to)
        }
        if controls.steps == nil, !pickedSteps.isEmpty { controls.steps = pickedSteps.joined(separator: ",") }
        if controls.series == nil, !pickedSeries.isEmpty { controls.series = pickedSeries.joined(separator: ",") }
        if let series = controls.series {
            do {
                _ = try TrendQuery.series(series, catalog: catalog)
            } catch {
                throw .trend(error.description)
            }
        }
        if let steps = controls.steps {
            do {
                // Checked here so a refusal happens before anything runs; the message says which
                // step and why, never the text.
                _ = try controls.funnel(steps, catalog: catalog)
            } catch {
                throw .funnel(error.description)
            }
        }
        return controls
    }

    /// The explorer's funnel: `steps` with the controls' window, order and exclusions, checked
    /// like a query (`FunnelModes.check`: the order and exclusions fit, no breakdown with
    /// conversion over time).
    public func funnel(_ steps: String, catalog: Catalog) throws(QueryError) -> FunnelDefinition {
        var funnel = try AdHocFunnel.definition(steps, windowSeconds: panel.windowSeconds ?? AdHocFunnel.defaultWindowSeconds, catalog: catalog)
        funnel.order = order
        for text in exclusions { funnel.exclusions.append(try AdHocFunnel.exclusion(text, steps: funnel.steps.count, catalog: catalog)) }
        var query = FunnelQuery(funnel: funnel, fromMs: 0, toMs: 1, breakdown: panel.breakdown)
        query.byEntryDay = byEntryDay
        try FunnelModes.check(query)
        return funnel
    }

    /// `2026-03-01` → epoch ms of that UTC midnight; nil unless exactly a real date of that form
    /// (2000–2099, as event times).
    static func day(_ text: String) -> Int64? {
        text.utf8.count == 10 ? TimestampFormat.milliseconds(text) : nil
    }

    /// The range these controls show, given the first and last stored event times (nil: an
    /// empty store, which shows the days up to `nowMs`). `to` is exclusive. `stored` is the
    /// store's `StoreAnalysis.eventTimeRange()`, whose events were not dated after their receipt,
    /// so a far-future device time never reaches here from the served pages.
    public func resolvedRange(stored: (first: Int64, last: Int64)?, nowMs: Int64) -> (fromMs: Int64, toMs: Int64) {
        let floor: (Int64) -> Int64 = { $0 - (($0 % Self.dayMs) + Self.dayMs) % Self.dayMs }
        let lastDay = floor(stored?.last ?? nowMs)
        switch range {
        case .custom: return (fromDayMs ?? lastDay, (toDayMs ?? lastDay) + Self.dayMs)
        // At most ``maxDays``, like a custom range: one event with a far-off time must not make
        // every panel build arrays of that many days.
        case .all: return (max(floor(stored?.first ?? nowMs - 29 * Self.dayMs), lastDay - (Self.maxDays - 1) * Self.dayMs), lastDay + Self.dayMs)
        default: return (lastDay - (range.days! - 1) * Self.dayMs, lastDay + Self.dayMs)
        }
    }

    /// The previous period of the same length, just before `range`.
    public static func previousPeriod(_ range: (fromMs: Int64, toMs: Int64)) -> (fromMs: Int64, toMs: Int64) {
        (range.fromMs - (range.toMs - range.fromMs), range.fromMs)
    }

    /// The canonical query of these controls (defaults left out, fixed order): links keep the
    /// controls from page to page, and the page cache is keyed by it.
    public var query: String {
        var items: [(String, String)] = []
        if range != .last30 { items.append(("range", range.rawValue)) }
        if range == .custom, let fromDayMs, let toDayMs { items += [("from", Format.date(fromDayMs)), ("to", Format.date(toDayMs))] }
        if compare { items.append(("compare", "previous")) }
        if let breakdown = panel.breakdown { items.append(("breakdown", breakdown)) }
        if panel.actor != .install { items.append(("actor", panel.actor.rawValue)) }
        if let window = panel.windowSeconds { items.append(("window", DurationText.text(seconds: window))) }
        if let steps { items.append(("steps", steps)) }
        if order != .sequential { items.append(("order", order.rawValue)) }
        items += exclusions.map { ("exclude", $0) }
        if byEntryDay { items.append(("by", "day")) }
        if let series { items.append(("series", series)) }
        if measure != .events { items.append(("measure", measure.rawValue)) }
        if interval != .day { items.append(("interval", interval.rawValue)) }
        if let returning { items.append(("returning", returning)) }
        if let anchor { items.append(("anchor", anchor)) }
        if direction != .next { items.append(("direction", direction.rawValue)) }
        if depth != 3 { items.append(("depth", String(depth))) }
        return items.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// A window the controls take: ``DurationText`` of at most 8 characters, digits then a unit,
    /// more than zero.
    static func windowSeconds(_ text: String) -> Int64? {
        guard text.utf8.count <= 8, text.utf8.dropLast().allSatisfy({ (0x30...0x39).contains($0) }),
              let seconds = DurationText.seconds(text), seconds > 0 else { return nil }
        return seconds
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986) and the funnel text's
    /// `,`, `|`, `[`, `]`, `;`, `=`, which stay readable in a shared URL (a value's `=` is safe:
    /// ``FormFields`` splits a field on its first `=` only).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x2C, 0x7C, 0x5B, 0x5D, 0x3B, 0x3D: out.append(Character(UnicodeScalar(byte)))
            default: out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }

    /// What a breakdown may name: the catalog's enabled closed-set properties (enum or boolean)
    /// and the release dimensions, sorted. Whether a panel's events carry one is checked per
    /// panel (`PanelQuery`).
    public static func breakdownOptions(_ catalog: Catalog) -> [String] {
        (catalog.properties.values.filter { $0.isEnabled && $0.closedValues != nil }.map(\.name) + EventsTable.versionColumns).sorted()
    }
}

/// Why a page's controls were refused: a stable code and a message that names the parameter,
/// never its value.
public enum SiteRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownParameter
    case repeated(String)
    case invalid(String)
    case invalidRange
    /// An explorer funnel the catalog refuses; the message is `AdHocFunnel`'s, which never
    /// repeats the text.
    case funnel(String)
    /// Trend series the catalog refuses (`TrendQuery`'s message, which never repeats the text).
    case trend(String)
    /// A returning series the catalog refuses (same rule).
    case retention(String)
    /// A path anchor the catalog refuses (same rule).
    case paths(String)

    public var code: String {
        switch self {
        case .unknownParameter: "unknown_parameter"
        case .repeated: "repeated_parameter"
        case .invalid: "invalid_parameter"
        case .invalidRange: "invalid_range"
        case .funnel: "invalid_funnel"
        case .trend: "invalid_series"
        case .retention: "invalid_returning"
        case .paths: "invalid_anchor"
        }
    }

    public var description: String {
        switch self {
        case .unknownParameter: "The address has a parameter this page does not take."
        case .repeated(let name): "The parameter “\(name)” is given more than once."
        case .invalid(let name): "The value of “\(name)” is not one this page accepts (\(Self.expected(name)))."
        case .invalidRange: "The range must start on or before its last day, and span at most \(SiteControls.maxDays) days."
        case .funnel(let reason): "The funnel cannot be run: \(reason)."
        case .trend(let reason): "The trend cannot be drawn: \(reason)."
        case .retention(let reason): "The retention matrix cannot be drawn: \(reason)."
        case .paths(let reason): "The paths cannot be drawn: \(reason)."
        }
    }

    static func expected(_ name: String) -> String {
        switch name {
        case "range": "one of " + SiteControls.RangePreset.allCases.map(\.rawValue).joined(separator: ", ")
        case "from", "to": "a date such as 2026-03-01"
        case "compare": "previous, or nothing"
        case "breakdown": "one of the closed-set properties in the list"
        case "actor": "install or user"
        case "window": "a duration such as 7d, 48h or 3600s, at most 90d"
        case "step", "event": "an enabled event of the catalog"
        case "measure": "one of " + TrendQuery.Measure.allCases.map(\.rawValue).joined(separator: ", ")
        case "interval": "one of " + TrendQuery.Interval.allCases.map(\.rawValue).joined(separator: ", ")
        case "order": "sequential, strict or any"
        case "exclude": "at most \(FunnelModes.maxExclusions) exclusions"
        case "by": "day, or nothing"
        case "direction": "next or previous"
        case "depth": "1 to \(PathQuery.maxDepth)"
        default: "see the form"
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
