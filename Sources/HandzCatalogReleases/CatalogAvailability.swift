import HandzAnalyticsCore

/// Which kept catalog versions allow which events and properties, for reports over a range that
/// spans several versions (docs/catalog-releases.md, "Analysis across versions"): a funnel step
/// whose event exists only from 1.4.0 cannot be reached by installs still on 1.3.0, and the
/// report says so next to the numbers instead of letting the drop look like behaviour.
public struct CatalogAvailability: Sendable {
    /// Kept catalogs (releases and the working one), oldest first.
    let catalogs: [(version: CatalogVersion, catalog: Catalog)]

    public init(_ catalogs: [Catalog]) {
        var byVersion: [CatalogVersion: Catalog] = [:]
        for catalog in catalogs { if let version = CatalogVersion(catalog.version) { byVersion[version] = catalog } }
        self.catalogs = byVersion.keys.sorted().map { ($0, byVersion[$0]!) }
    }

    /// The versions (kept) in which `allowed` holds, oldest first.
    func versions(where allowed: (Catalog) -> Bool) -> [CatalogVersion] {
        catalogs.filter { allowed($0.catalog) }.map(\.version)
    }

    static func eventAllowed(_ catalog: Catalog, _ name: String) -> Bool {
        catalog.event(named: name)?.isEnabled ?? false
    }

    static func propertyAllowed(_ catalog: Catalog, _ event: String, _ property: String) -> Bool {
        guard let definition = catalog.event(named: event), definition.isEnabled else { return false }
        if catalog.envelope.required.contains(property) || catalog.envelope.optional.contains(property) { return true }
        return catalog.allowedProperties(of: definition).contains { $0.name == property } && (catalog.properties[property]?.isEnabled ?? false)
    }

    /// The notes a funnel report carries for the catalog versions in its data: every step (and
    /// the success) event, and every property a step filters on, that some of those versions
    /// could not send; and the versions in the data that are not kept (what they could send is
    /// unknown). Empty when every version in the data allows everything the funnel reads.
    public func notes(for funnel: FunnelDefinition, dataVersions: [String]) -> [String] {
        let known = Set(catalogs.map(\.version))
        let inData = dataVersions.compactMap(CatalogVersion.init).filter(known.contains).sorted()
        var notes: [String] = []
        var reads: [(label: String, events: [String], filters: [PropertyFilter])] = funnel.steps.enumerated().map {
            ("step \($0.offset + 1)", $0.element.events, $0.element.filters)
        }
        if let success = funnel.successCondition, !success.events.isEmpty { reads.append(("success", success.events, success.filters)) }
        for read in reads {
            for event in read.events {
                let allowed = versions { Self.eventAllowed($0, event) }
                if let note = note("`\(event)`", allowed: allowed, inData: inData, label: read.label) { notes.append(note) }
                for filter in read.filters where !filter.property.isEmpty {
                    let withProperty = versions { Self.propertyAllowed($0, event, filter.property) }
                    guard withProperty != allowed else { continue }
                    if let note = note("`\(event).\(filter.property)`", allowed: withProperty, inData: inData, label: read.label) { notes.append(note) }
                }
            }
        }
        let unknown = dataVersions.filter { CatalogVersion($0).map { !known.contains($0) } ?? true }
        if !unknown.isEmpty {
            notes.append("catalog version(s) \(unknown.joined(separator: ", ")) in this range are not kept in catalog/releases: what their apps could send is not known here")
        }
        return notes
    }

    /// "`x` exists from 1.4.0; installs on 1.3.0 cannot reach step 2 through it", or nil when
    /// every version in the data allows it.
    func note(_ subject: String, allowed: [CatalogVersion], inData: [CatalogVersion], label: String) -> String? {
        let missing = inData.filter { !allowed.contains($0) }
        guard !missing.isEmpty else { return nil }
        let list = missing.map(\.description).joined(separator: ", ")
        guard let first = allowed.first, let last = allowed.last else {
            return "\(subject) is in no kept catalog version; \(label) cannot be reached through it"
        }
        let span = last == catalogs.last?.version ? "exists from \(first)" : "exists in \(first)–\(last) only"
        return "\(subject) \(span); installs on \(list) cannot reach \(label) through it"
    }
}
