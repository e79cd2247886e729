import HandzAnalyticsCore

/// KPI checks (CH33 §5.2): every KPI of the minimum set defined, each with its written
/// definition, the parameters its measure needs, and events and properties that exist.
extension Lint {
    mutating func checkKPIs() {
        let defined = Set(catalog.kpis.map(\.id))
        for id in SpecInventory.kpis where !defined.contains(id) {
            error(CatalogLocation(file: "kpis.yaml", line: 1), "KPI \(id) (CH33 §5.2) is not defined")
        }
        for kpi in catalog.kpis {
            let at = sources.kpis[kpi.id] ?? CatalogLocation(file: "kpis.yaml", line: 1)
            let text = kpi.definition
            if kpi.title.isEmpty || text.numerator.isEmpty || text.denominator.isEmpty || text.actor.isEmpty || text.timeBasis.isEmpty {
                error(at, "KPI \(kpi.id) needs a title, numerator, denominator, actor and time_basis")
            }
            for (name, present) in requirements(kpi) where !present {
                error(at, "KPI \(kpi.id): measure \(kpi.measure.rawValue) needs \(name)")
            }
            if kpi.divisor <= 0 { error(at, "KPI \(kpi.id): divisor must be positive") }
            let matches = [kpi.target, kpi.source, kpi.exclude].compactMap { $0 } + kpi.population
            for match in matches {
                checkMatch(match, kpi: kpi.id, at: at)
            }
            for sum in kpi.sums {
                checkMatch(EventMatch(events: [sum.event]), kpi: kpi.id, at: at)
                checkCarried(sum.property, by: [sum.event], type: .integer, kpi: kpi.id, at: at)
            }
            if let property = kpi.property, let target = kpi.target {
                checkCarried(property, by: target.events, type: kpi.measure == .latestValueDistribution ? .integer : nil, kpi: kpi.id, at: at)
            }
            if let key = kpi.key {
                for match in [kpi.source, kpi.target].compactMap({ $0 }) { checkCarried(key, by: match.events, type: nil, kpi: kpi.id, at: at) }
            }
            if kpi.measure == .sessionsWithoutReport, let key = kpi.key, let exclude = kpi.exclude {
                // The key names a session: a session_id, so a UUID (CH33 §3.1).
                checkCarried(key, by: exclude.events, type: nil, kpi: kpi.id, at: at)
                if let definition = catalog.properties[key], definition.format != .uuid {
                    error(at, "KPI \(kpi.id): \(key) names a session, so it must have format uuid")
                }
                if !kpi.population.isEmpty { error(at, "KPI \(kpi.id): sessions_without_report counts every session; it takes no population") }
            }
        }
    }

    /// What each measure reads, and whether this KPI gives it.
    func requirements(_ kpi: KPIDefinition) -> [(String, Bool)] {
        switch kpi.measure {
        case .cohortConversion: [("target", kpi.target != nil), ("window", kpi.windowSeconds != nil)]
        case .cohortMedianTime, .everyWeek, .weeklyActorShare, .eventsPerActive: [("target", kpi.target != nil)]
        case .cohortReturn: [("target", kpi.target != nil), ("day", kpi.day != nil)]
        case .weeklyDistinctPerActive: [("target", kpi.target != nil), ("property", kpi.property != nil)]
        case .weeklySumPerActor: [("target", kpi.target != nil), ("sum", !kpi.sums.isEmpty)]
        case .latestValueDistribution: [("target", kpi.target != nil), ("key", kpi.key != nil), ("property", kpi.property != nil)]
        case .followedBy: [("source", kpi.source != nil), ("target", kpi.target != nil), ("window", kpi.windowSeconds != nil)]
        case .actorShare: [("target", kpi.target != nil), ("population", !kpi.population.isEmpty)]
        case .sessionsWithout: [("exclude", kpi.exclude != nil)]
        case .sessionsWithoutReport: [("exclude", kpi.exclude != nil), ("key", kpi.key != nil)]
        }
    }

    mutating func checkMatch(_ match: EventMatch, kpi: String, at: CatalogLocation) {
        if match.events.isEmpty { error(at, "KPI \(kpi): an event list is empty") }
        for name in match.events {
            guard let event = catalog.event(named: name) else {
                error(at, "KPI \(kpi): \(name) is not a catalogued event")
                continue
            }
            if !event.isEnabled { error(at, "KPI \(kpi): \(name) is a disabled placeholder") }
            for filter in match.filters { checkFilter(filter, event: event, at: at, step: "KPI \(kpi)") }
        }
    }

    mutating func checkCarried(_ property: String, by events: [String], type: PropertyType?, kpi: String, at: CatalogLocation) {
        for name in events {
            guard let event = catalog.event(named: name) else { continue }
            guard catalog.allowedProperties(of: event).contains(where: { $0.name == property }) else {
                error(at, "KPI \(kpi): event \(name) does not carry \(property)")
                continue
            }
            if let type, catalog.properties[property]?.type != type {
                error(at, "KPI \(kpi): \(property) must be an \(type.rawValue)")
            }
        }
    }
}
