/// Faults injected into an install's finished journey (those not injected while it ran): each
/// looks for its first place, edits the events there, and records what the rule should cite.
extension InstallJourney {
    mutating func injectAfterwards() {
        for fault in SimulatedFault.allCases where faults.contains(fault) {
            guard let cited = inject(fault) else { continue }
            record(fault, cited: cited)
            if fault != .missingFunnelStep { faults.remove(fault) }
        }
    }

    /// Positions (session, index) of every event, in order.
    var positions: [(Int, Int)] { sessions.indices.flatMap { s in sessions[s].indices.map { (s, $0) } } }

    /// The first event named `name` whose next event in the session satisfies `next`.
    func first(_ name: String, next: ((SimulatedEvent) -> Bool)? = nil, where condition: ((SimulatedEvent) -> Bool)? = nil) -> (Int, Int)? {
        positions.first { s, i in
            let event = sessions[s][i]
            guard event.name == name, condition?(event) ?? true else { return false }
            guard let next else { return true }
            return i + 1 < sessions[s].count && next(sessions[s][i + 1])
        }
    }

    func named(_ name: String) -> (SimulatedEvent) -> Bool { { $0.name == name } }

    /// Applies `fault` here; the events the catching rule should cite, or nil when this install
    /// offers no place for it.
    mutating func inject(_ fault: SimulatedFault) -> [SimulatedEvent]? {
        switch fault {
        case .doubleAppOpen, .doubleCreditRefresh:
            return nil  // injected while the journey runs
        case .missingScreenViewed:
            guard let s = sessions.firstIndex(where: { $0.contains(where: named("screen_viewed")) }) else { return nil }
            sessions[s].removeAll(where: named("screen_viewed"))
            return [sessions[s][0]]
        case .wrongPreviousScreen:
            guard let (s, i) = first("screen_viewed", where: { $0.text.contains("\"previous_screen_name\":") }) else { return nil }
            let previous = sessions[s][..<i].last(where: named("screen_viewed"))!
            let current = Self.stringValue("previous_screen_name", in: sessions[s][i].text)!
            let other = EventFactory.routes.first { $0 != current }!
            sessions[s][i].text = sessions[s][i].text.replacing("\"previous_screen_name\":\"\(current)\"", with: "\"previous_screen_name\":\"\(other)\"")
            return [previous, sessions[s][i]]
        case .missingGuestModeEntered:
            guard first("guest_mode_entered") != nil,
                  let (s, i) = first("gate_result", where: { $0.userState == "guest" }) else { return nil }
            let restriction = sessions[s][i]
            for index in sessions.indices { sessions[index].removeAll(where: named("guest_mode_entered")) }
            return [restriction]
        case .missingSignupViewed:
            return drop("signup_viewed", next: named("signup_success"), cite: .next)
        case .missingGateResult:
            guard let (s, i) = first("gate_attempt", next: named("gate_result")) else { return nil }
            sessions[s].remove(at: i + 1)
            return [sessions[s][i]]
        case .missingSaveAttempt:
            guard let (s, i) = first("flow_save_attempt", next: named("gate_attempt")) else { return nil }
            sessions[s].remove(at: i)
            return [sessions[s][i..<sessions[s].count].first(where: named("flow_saved_blocked"))!]
        case .missingBranchLimitGate:
            guard let (s, i) = first("builder_branch_limit_hit", next: named("gate_attempt")) else { return nil }
            sessions[s].remove(at: i + 1)
            return [sessions[s][i]]
        case .unresolvedSaveAttempt:
            guard let (s, i) = first("flow_save_attempt", next: named("flow_saved_success")) else { return nil }
            sessions[s].remove(at: i + 1)
            return [sessions[s][i]]
        case .missingShareLinkCreated:
            guard let (s, i) = first("share_link_created", next: { $0.name != "share_link_opened" }) else { return nil }
            sessions[s].remove(at: i)
            return [sessions[s][i - 1]]
        case .missingImportReceived:
            guard first("share_link_created") == nil else { return nil }
            return drop("share_link_opened", next: named("import_received"), cite: .this, dropNext: true)
        case .missingPracticeGateResult:
            return drop("practice_entry_attempt", next: named("practice_gate_result"), cite: .this, dropNext: true)
        case .missingPracticeSessionStarted:
            guard let (s, i) = first("practice_session_started") , i > 0,
                  ["practice_gate_result", "practice_credit_spent"].contains(sessions[s][i - 1].name) else { return nil }
            sessions[s].remove(at: i)
            return [sessions[s][..<i].last(where: named("practice_gate_result"))!]
        case .unfinishedPracticeSession:
            return drop("practice_session_started", next: { $0.name == "practice_session_completed" || $0.name == "practice_session_interrupted" }, cite: .this, dropNext: true)
        case .creditsNotDecrementing:
            // The last spend of the first run of two or more (between refreshes), so only it is off.
            var run: [(Int, Int)] = []
            for (s, i) in positions + [(-1, -1)] {
                let name = s < 0 ? "" : sessions[s][i].name
                if name == "practice_credit_spent" { run.append((s, i)); continue }
                guard s < 0 || name == "practice_credit_refreshed" else { continue }
                if run.count >= 2, let (ls, li) = run.last, let value = Self.integerValue("credits_remaining_after", in: sessions[ls][li].text) {
                    let (ps, pi) = run[run.count - 2]
                    sessions[ls][li].text = sessions[ls][li].text.replacing("\"credits_remaining_after\":\(value)", with: "\"credits_remaining_after\":\(value + 1)")
                    return [sessions[ps][pi], sessions[ls][li]]
                }
                run = []
            }
            return nil
        case .missingPaywallViewed:
            return drop("paywall_viewed", next: named("paywall_cta_tapped"), cite: .next)
        case .missingCTABeforeTrial:
            return drop("paywall_cta_tapped", next: named("trial_started"), cite: .next)
        case .missingCTABeforePurchase:
            return drop("paywall_cta_tapped", next: { $0.name == "subscription_purchased" && $0.text.contains("\"via\":\"paywall\"") }, cite: .next)
        case .missingRestoreResult:
            return drop("paywall_cta_tapped", next: { $0.name.hasPrefix("restore_purchases_") }, cite: .this, dropNext: true)
        case .missingPerfEvent:
            return drop("flow_builder_opened", next: named("perf_flow_builder_loaded"), cite: .this, dropNext: true)
        case .eventsAfterOptOut:
            // Analytics turned off near the end of a session: the trailing screens and
            // app_background still go out, marked analytics_opt_in=false. The session's first
            // two events (app_open and its first screen) stay before the toggle, so the store,
            // which quarantines opted-out events, keeps a complete cold start and only this rule fails.
            let trailing: Set<String> = ["screen_viewed", "app_background"]
            guard let s = sessions.firstIndex(where: { $0.count >= 4 && $0[$0.count - 2].name == "screen_viewed" }) else { return nil }
            var start = sessions[s].count - 1
            while start > 2, trailing.contains(sessions[s][start - 1].name) { start -= 1 }
            for index in start..<sessions[s].count {
                sessions[s][index].text = sessions[s][index].text.replacing("\"analytics_opt_in\":true", with: "\"analytics_opt_in\":false")
            }
            return Array(sessions[s][start...])
        case .uncataloguedEvent:
            guard let (s, i) = first("screen_viewed") else { return nil }
            var event = sessions[s][i]
            let eventID = Self.uncataloguedID(event.eventID)
            event.text = event.text.replacing("\"event_name\":\"screen_viewed\"", with: "\"event_name\":\"debug_menu_opened\"")
                .replacing("\"event_id\":\"\(event.eventID)\"", with: "\"event_id\":\"\(eventID)\"")
            event.name = "debug_menu_opened"
            event.eventID = eventID
            sessions[s].insert(event, at: i + 1)
            return [event]
        case .missingFunnelStep:
            let all = positions.filter { sessions[$0.0][$0.1].name == "mastery_schedule_saved" }
            guard !all.isEmpty else { return nil }
            for index in sessions.indices { sessions[index].removeAll(where: named("mastery_schedule_saved")) }
            return []
        }
    }

    enum Cite { case this, next }

    /// Drops the first `name` followed by `next` (or, with `dropNext`, that next event) and
    /// returns the surviving event to cite.
    mutating func drop(_ name: String, next: @escaping (SimulatedEvent) -> Bool, cite: Cite, dropNext: Bool = false) -> [SimulatedEvent]? {
        guard let (s, i) = first(name, next: next) else { return nil }
        if dropNext {
            sessions[s].remove(at: i + 1)
            return [sessions[s][i]]
        }
        sessions[s].remove(at: i)
        return [sessions[s][i]]
    }

    /// The value of a string property as the factory writes it (`"key":"value"`).
    static func stringValue(_ key: String, in text: String) -> String? {
        guard let range = text.firstRange(of: "\"\(key)\":\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    static func integerValue(_ key: String, in text: String) -> Int64? {
        guard let range = text.firstRange(of: "\"\(key)\":") else { return nil }
        return Int64(String(text[range.upperBound...].prefix { $0.isNumber }))
    }

    /// A distinct, valid id for an inserted event: the original's with its last hex digit changed.
    static func uncataloguedID(_ id: String) -> String {
        let last = id.last!
        return String(id.dropLast()) + (last == "0" ? "1" : "0")
    }
}
