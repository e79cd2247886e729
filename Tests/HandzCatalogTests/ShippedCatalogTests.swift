import HandzAnalyticsCore
import HandzCatalog
import HandzTestSupport
import Testing

/// The catalog in `catalog/` is complete and clean.
@Suite struct ShippedCatalogTests {
    let catalog = RepositoryCatalog.catalog

    @Test("catalog lint reports no errors and no warnings")
    func lintIsClean() throws {
        let loaded = try CatalogLoader.load(directory: RepositoryCatalog.directory)
        let problems = loaded.loadProblems + CatalogLinter.lint(loaded)
        #expect(problems.isEmpty, "\(problems.map(\.description))")
    }

    @Test("all 73 CH33 §6 events and the §1 attempt events are catalogued and enabled")
    func specEventsPresent() {
        #expect(SpecInventory.section6Events.count == 73)
        #expect(Set(SpecInventory.section6Events).count == 73)
        for name in SpecInventory.section6Events + SpecInventory.attemptEvents {
            #expect(catalog.event(named: name)?.isEnabled == true, "\(name)")
        }
        let gateResult = catalog.event(named: "gate_result")!
        #expect(gateResult.properties.map(\.name).contains("gate_name"))
        #expect(catalog.effectiveDefinition(of: gateResult.properties.first { $0.name == "result" }!)?.allowedValues == ["allowed", "blocked"])
    }

    @Test("every funnel step of CH33 §5.1 resolves to an enabled event")
    func funnelStepsResolve() {
        #expect(catalog.funnels.map(\.id) == ["F0", "F1", "F2", "F3", "F4"])
        for funnel in catalog.funnels {
            for step in funnel.steps {
                #expect(!step.events.isEmpty)
                for name in step.events { #expect(catalog.event(named: name)?.isEnabled == true, "\(funnel.id): \(name)") }
            }
        }
        let resolved = catalog.funnels.flatMap(\.steps).compactMap(\.specName)
        #expect(Set(resolved) == ["guest_restriction_hit", "import_saved_to_library", "mastery_plan_scheduled", "mastery_practice_started"])
    }

    @Test("no string property is free-form: each has a closed set or a format")
    func noFreeFormStrings() {
        for (name, definition) in catalog.properties where definition.type == .string && name != "event_name" {
            #expect((definition.allowedValues != nil) != (definition.format != nil), "\(name)")
        }
    }

    @Test("every integer has a range, and durations and counts are never negative")
    func integerRanges() {
        for (name, definition) in catalog.properties where definition.type == .integer {
            #expect(definition.minimum != nil && definition.maximum != nil, "\(name)")
            if name.hasSuffix("_ms") || name.hasSuffix("_count") || name.hasSuffix("_seconds") {
                #expect((definition.minimum ?? -1) >= 0, "\(name)")
            }
        }
        #expect(catalog.properties["branch_index"]?.maximum == 9)
        #expect(catalog.properties["total_outgoing_from_source_after"]?.maximum == 10)
    }

    @Test("placeholders from CH08 §9 and CH30 are disabled")
    func placeholders() {
        for name in SpecInventory.placeholderEvents {
            #expect(catalog.event(named: name)?.isEnabled == false, "\(name)")
        }
        #expect(catalog.properties["experiment_id"]?.isEnabled == false)
        #expect(catalog.properties["flag_state_snapshot"]?.isEnabled == false)
    }

    @Test("the global properties of §3.2, event_id and user_id form the envelope")
    func envelope() {
        #expect(Set(catalog.envelope.required) == Set(SpecInventory.requiredGlobals))
        #expect(catalog.envelope.optional == ["user_id"])
        #expect(catalog.properties["user_state"]?.allowedValues == ["guest", "free", "trial", "pro"])
        #expect(catalog.properties["network_state"]?.allowedValues == ["online", "offline", "flaky"])
    }

    @Test("names that break the §4 standard are exactly the listed exceptions")
    func namingExceptions() {
        for event in catalog.events {
            let breaks = catalog.naming.violation(of: event.name) != nil
            #expect(breaks == (catalog.naming.exceptions[event.name] != nil), "\(event.name)")
        }
        #expect(catalog.naming.exceptions["signup_viewed"] != nil)
        #expect(catalog.naming.exceptions["trial_started"] != nil)
        #expect(catalog.naming.exceptions["import_received"] != nil)
        #expect(catalog.naming.violation(of: "mastery_schedule_saved") == nil)
    }
}
