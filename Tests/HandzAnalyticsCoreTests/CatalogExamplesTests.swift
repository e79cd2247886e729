import HandzAnalyticsCore
import HandzSynthetic
import HandzTestSupport
import Testing

/// Every enabled catalogued event has a generated valid example, and the validator accepts it.
@Suite struct CatalogExamplesTests {
    static let enabledEvents = RepositoryCatalog.catalog.events.filter(\.isEnabled).map(\.name)
    static let placeholderEvents = RepositoryCatalog.catalog.events.filter { !$0.isEnabled }.map(\.name)

    @Test("a generated example with every property is accepted", arguments: enabledEvents)
    func fullExampleIsAccepted(name: String) {
        let example = EventFactory(catalog: RepositoryCatalog.catalog).validExample(of: RepositoryCatalog.catalog.event(named: name)!)
        let result = verdict(example)
        #expect(result.isAccepted, "\(name): \(findings(result))")
        #expect(result.eventName == name)
    }

    @Test("an example with only the required properties is accepted", arguments: enabledEvents)
    func minimalExampleIsAccepted(name: String) {
        let result = verdict(EventBuilder(name))
        #expect(result.isAccepted, "\(name): \(findings(result))")
    }

    @Test("placeholders are rejected as event_disabled even when well formed", arguments: placeholderEvents)
    func placeholderIsDisabled(name: String) {
        let result = verdict(EventBuilder(name, includeOptional: true))
        #expect(result.codes.contains(.eventDisabled))
    }

    @Test("ten thousand generated valid events are all accepted")
    func generatedTrafficIsAccepted() {
        var generator = CorpusGenerator(catalog: RepositoryCatalog.catalog, seed: 99, invalidFraction: 0)
        var validator = makeValidator()
        for _ in 0..<10_000 {
            let (line, _) = generator.next()
            let result = validator.validate(line)
            #expect(result.isAccepted, "\(findings(result))")
            if !result.isAccepted { break }
        }
    }

    @Test("every corpus mutation is rejected with the code it targets")
    func mutationsAreRejectedWithTheirCode() {
        var generator = CorpusGenerator(catalog: RepositoryCatalog.catalog, seed: 5, invalidFraction: 1)
        var validator = makeValidator()
        var seen: Set<String> = []
        for _ in 0..<20_000 {
            let (line, label) = generator.next()
            let mutation = CorpusMutation(rawValue: label)!
            seen.insert(label)
            let result = validator.validate(line)
            #expect(result.codes.contains(mutation.expectedCode), "\(label) → \(result.codes)")
        }
        #expect(seen == Set(CorpusMutation.allCases.map(\.rawValue)))
    }
}
