/// `chain`, `silence_while`, `decrement`, `funnel_completeness`, `catalogued`: rules that carry
/// state from event to event.
extension RuleContext {
    /// CH33 §13 "screen_viewed with correct screen_name and previous_screen_name": each
    /// `event`'s `property` equals the previous `event`'s `previousProperty`; the first carries none.
    mutating func chain(_ event: CompiledPattern, _ property: String, _ previousProperty: String, _ scope: QAScope) {
        guard let link = log.slots.slot(named: property), let source = log.slots.slot(named: previousProperty) else { return }
        for unit in order.units(scope) {
            var previous: Int32?
            for index in unit where event.matches(index, log) {
                checked += 1
                let value = log.value(index, link)
                if let previous {
                    if value == SlotValue.missing {
                        fail("\(property) is missing; the previous \(event.description) in this \(scope.rawValue) set \(previousProperty)", [previous, index])
                    } else if value != log.value(previous, source) {
                        fail("\(property) differs from the previous \(event.description)'s \(previousProperty)", [previous, index])
                    }
                } else if value != SlotValue.missing {
                    fail("the first \(event.description) of the \(scope.rawValue) carries \(property)", [index])
                }
                previous = index
            }
        }
    }

    /// CH33 §2.2, §8.2 "toggling OFF stops all event sending immediately": no event while the
    /// envelope boolean `property` is `value`. Each run of such events is one violation. Events
    /// the store quarantined as `opted_out` are reported too (without identifiers: the
    /// quarantine keeps none).
    mutating func silence(_ property: String, _ value: Bool, _ scope: QAScope) {
        guard let slot = log.slots.slot(named: property) else { return }
        let silent: Int64 = value ? 1 : 0
        for unit in order.units(scope) {
            var run: [Int32] = []
            for index in unit {
                checked += 1
                let state = log.value(index, slot)
                if state == silent {
                    run.append(index)
                } else if !run.isEmpty {
                    fail("\(run.count) event(s) sent while \(property) was \(value)", run)
                    run = []
                }
            }
            if !run.isEmpty { fail("\(run.count) event(s) sent while \(property) was \(value)", run) }
        }
        failQuarantined(codes: ["opted_out"]) { "\($0) event(s) sent while \(property) was \(value) (quarantined by the store as opted_out)" }
    }

    /// CH33 §8.2 "practice_credit_spent decrements correctly": each `event`'s `property` is the
    /// previous one's minus `by`; a `reset` event sets the next expected value from its
    /// `resetProperty` (the first `event` in a unit sets the baseline).
    mutating func decrement(_ event: CompiledPattern, _ property: String, _ by: Int64, _ reset: CompiledPattern?, _ resetProperty: String?, _ scope: QAScope) {
        guard let slot = log.slots.slot(named: property) else { return }
        let resetSlot = resetProperty.flatMap { log.slots.slot(named: $0) }
        for unit in order.units(scope) {
            var balance: Int64?
            var last: Int32?
            for index in unit {
                if let reset, reset.matches(index, log) {
                    let value = resetSlot.map { log.value(index, $0) } ?? SlotValue.missing
                    balance = value == SlotValue.missing ? nil : value
                    last = index
                    continue
                }
                guard event.matches(index, log) else { continue }
                checked += 1
                let value = log.value(index, slot)
                if value == SlotValue.missing {
                    fail("\(event.description) without \(property)", [index])
                    balance = nil
                } else {
                    if let balance, value != balance - by, let last {
                        fail("\(property) did not decrease by \(by) from the previous \(log.displayName(last))", [last, index])
                    }
                    balance = value
                }
                last = index
            }
        }
    }

    /// CH33 §13 "All major funnels (F0–F4) can be computed from events without missing steps":
    /// computed as the funnel is (per install, greedy, within the funnel's window), every step is
    /// reached by at least one install. A step no install reaches is reported at the last event
    /// of the furthest chain — where the next step's event was expected.
    mutating func funnelCompleteness(_ ids: [String]) {
        for funnel in program.catalog.funnels where ids.contains(funnel.id) {
            let steps = funnel.steps.map { compile(EventPattern(events: $0.events, filters: $0.filters)) }
            let windowMs = funnel.windowSeconds * 1000
            var best: [Int32] = []
            for unit in order.units(.install) {
                let events = Array(unit)
                for (start, entry) in events.enumerated() where steps[0].matches(entry, log) {
                    var chain = [entry]
                    var cursor = start + 1
                    while chain.count < steps.count, cursor < events.count {
                        let index = events[cursor]
                        if log.time[Int(index)] - log.time[Int(entry)] > windowMs { break }
                        if steps[chain.count].matches(index, log) { chain.append(index) }
                        cursor += 1
                    }
                    if chain.count > best.count { best = chain }
                    if best.count == steps.count { break }
                }
                if best.count == steps.count { break }
            }
            checked += 1
            guard best.count < steps.count else { continue }
            let missing = best.count
            let name = funnel.steps[missing].specName ?? steps[missing].description
            if best.isEmpty {
                violations.append(QAViolation(ruleID: rule.id, message: "\(funnel.id) cannot be computed: no install reaches step 1 (\(steps[0].description))",
                                              installID: nil, sessionID: nil, events: []))
            } else {
                fail("\(funnel.id) step \(missing + 1) (\(name)) is reached by no install; the furthest chain stops here", [best[best.count - 1]])
            }
        }
    }

    /// CH33 §6 "If event not listed here, it must not ship unless … placeholder/disabled": every
    /// event is catalogued and enabled. One violation per session, listing the events.
    mutating func catalogued() {
        for unit in order.units(.session) {
            var offending: [Int32] = []
            for index in unit {
                checked += 1
                if !program.enabledNames.contains(log.name[Int(index)]) { offending.append(index) }
            }
            if !offending.isEmpty { fail("\(offending.count) event(s) not in the catalog or disabled", offending) }
        }
        failQuarantined(codes: ["unknown_event", "event_disabled"]) { "\($0) event(s) not in the catalog or disabled (quarantined by the store)" }
    }

    /// One violation for the events the store quarantined with any of `codes`: their names (when
    /// catalogued) and receive times — the quarantine keeps no ids, installs or sessions.
    mutating func failQuarantined(codes: Set<String>, _ message: (Int) -> String) {
        let quarantined = log.quarantined.filter { !codes.isDisjoint(with: $0.codes) }
        guard !quarantined.isEmpty else { return }
        violations.append(QAViolation(
            ruleID: rule.id, message: message(quarantined.count), installID: nil, sessionID: nil,
            events: quarantined.prefix(QAViolation.maxEvents).map { QAEventRef(name: $0.eventName ?? "(uncatalogued)", timeMs: $0.receivedTimeMs, eventID: nil) },
            omittedEvents: max(0, quarantined.count - QAViolation.maxEvents)))
    }
}
