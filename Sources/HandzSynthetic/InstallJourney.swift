import HandzAnalyticsCore

/// One install's life in the simulation: a first session through onboarding and the builder,
/// then returning sessions on later days with practice, paywall, mastery, sharing and signup.
struct InstallJourney {
    let simulator: JourneySimulator
    var random: SeededRandom
    var context: EventContext
    /// Events per session, in the order they happened.
    var sessions: [[SimulatedEvent]] = []
    var current: [SimulatedEvent] = []
    /// Faults still to inject (`simulate --faults`), and where the journey injected them.
    var faults: Set<SimulatedFault> = []
    var injected: [InjectedFault] = []
    /// Links this install created, with when: receivers open only links that exist already.
    var createdLinks: [(id: String, createdMs: Int64)] = []
    var flows: [String] = []
    var trialStartedMs: Int64?
    let endMs: Int64
    /// Event ids, monotonic within a millisecond (RFC 9562 §6.2), as the client makes them.
    var eventIDs = MonotonicUUIDv7()
    /// The screen on display in the current session (previous_screen_name of the next one).
    var screen: String?
    /// Monthly free practice credits (CH08 §5: 3 a month) and when they were last refreshed.
    var credits: Int64 = 3
    var creditsRefreshedMs: Int64
    /// A session that crashed and the screen it was on: reported by the next launch (CH33 §6.11),
    /// never if the install does not launch again.
    var unreportedCrash: (sessionID: String, screen: String?)?

    init(simulator: JourneySimulator, random: inout SeededRandom) {
        self.simulator = simulator
        self.random = SeededRandom(seed: random.next())
        let options = simulator.options
        let day = self.random.int(in: 0...Int64(max(options.days - 1, 0)))
        let start = options.startMs + day * 86_400_000 + self.random.int(in: 0...86_399_999)
        endMs = options.startMs + Int64(options.days) * 86_400_000
        context = simulator.factory.randomContext(&self.random, timeMilliseconds: start)
        context.userID = nil
        context.userState = "guest"
        creditsRefreshedMs = start
    }

    // MARK: - Emitting

    /// Advances the clock (a tie with probability 0.08: same millisecond as the previous event).
    mutating func advance(_ seconds: ClosedRange<Int64>) {
        if random.chance(0.08) { return }
        context.timeMilliseconds += random.int(in: seconds.lowerBound * 1000...seconds.upperBound * 1000)
    }

    mutating func emit(_ name: String, _ overrides: [(String, PropertyValue)] = [], removing: [String] = [], after seconds: ClosedRange<Int64> = 2...90) {
        advance(seconds)
        let eventID = nextEventID()
        let text = simulator.line(name, context, overrides, removing: removing, eventID: eventID, &random)
        current.append(SimulatedEvent(name: name, text: text, eventID: eventID, sessionID: context.sessionID, userState: context.userState))
    }

    /// A UUIDv7 for the current time, greater than the previous one when in the same millisecond.
    mutating func nextEventID() -> String {
        eventIDs.next(milliseconds: UInt64(context.timeMilliseconds), using: &random)
    }

    mutating func beginSession(cold: Bool) {
        context.sessionID = SyntheticUUID.v4(&random)
        current = []
        screen = nil
        let launch: [(String, PropertyValue)] = [("start_type", .string(cold ? "cold" : "warm")), ("launch_source", .string(random.pick(["direct", "direct", "push", "deep_link"])))]
        emit("app_open", launch, after: 0...0)
        if faults.remove(.doubleAppOpen) != nil {
            // The fault: the app tracks its foreground entry twice.
            emit("app_open", launch, after: 0...0)
            record(.doubleAppOpen, cited: [current[0], current[1]])
        }
        show(after: 0...3)
        reportCrash()
    }

    /// The launch after a crash sends crash_reported from the new session, naming the crashed
    /// one in crashed_session_id; one report in ten comes from an older app build without it
    /// (catalog before 1.3.0), which crash_free_sessions counts against the reporting session.
    mutating func reportCrash() {
        guard let crash = unreportedCrash else { return }
        unreportedCrash = nil
        var overrides: [(String, PropertyValue)] = crash.screen.map { [("last_screen_name", .string($0))] } ?? []
        if random.chance(0.9) {
            overrides.append(("crashed_session_id", .string(crash.sessionID)))
            emit("crash_reported", overrides, after: 0...5)
        } else {
            emit("crash_reported", overrides, removing: ["crashed_session_id"], after: 0...5)
        }
    }

    /// A screen_viewed chained to the one before it in the session (CH33 §13).
    mutating func show(after seconds: ClosedRange<Int64> = 2...90) {
        let next = random.pick(EventFactory.routes)
        if let screen {
            emit("screen_viewed", [("screen_name", .string(next)), ("previous_screen_name", .string(screen))], after: seconds)
        } else {
            emit("screen_viewed", [("screen_name", .string(next))], removing: ["previous_screen_name"], after: seconds)
        }
        screen = next
    }

    /// gate_attempt then gate_result for one gate, in the same millisecond or the next ones (CH33 §1).
    mutating func gate(_ name: String, blocked: Bool) {
        emit("gate_attempt", [("gate_name", .string(name))], after: 0...0)
        emit("gate_result", [("gate_name", .string(name)), ("result", .string(blocked ? "blocked" : "allowed"))], after: 0...0)
    }

    mutating func endSession() {
        emit("app_background", [], after: 5...600)
        sessions.append(current)
        current = []
    }

    /// Ends the session as one in 33 does: a crash, so no app_background; the next launch reports it.
    mutating func endSessionOrCrash() {
        guard random.chance(0.03) else { return endSession() }
        unreportedCrash = (context.sessionID, screen)
        sessions.append(current)
        current = []
    }

    // MARK: - The journey

    mutating func live() {
        firstSession()
        var day = context.timeMilliseconds
        // Each return is followed by another with the install's loyalty: most installs come
        // back a few times, some keep coming for weeks (D30 retention, weekly practice).
        let loyalty = random.pick([0.5, 0.8, 0.92, 0.97])
        while true {
            day += random.int(in: 2 * 3_600_000...(60 * 3_600_000))
            guard day < endMs, random.chance(loyalty) else { break }
            context.timeMilliseconds = max(context.timeMilliseconds, day)
            laterSession()
        }
    }

    mutating func firstSession() {
        beginSession(cold: true)
        filler()
        if random.chance(0.85) {
            emit("onboarding_viewed")
            maybeConcept()
            let guestFirst = random.chance(0.5)
            if guestFirst {
                emit("guest_mode_entered", [("entry_point", .string("first_launch"))])
            } else if random.chance(0.8) {
                signup()
            }
            // Whoever did not sign up goes on as a guest (CH33 §8.2 guest flow starts here).
            if context.userState == "guest", !guestFirst {
                emit("guest_mode_entered", [("entry_point", .string("skip_signup"))])
            }
            build(newFlow: true, openProbability: 0.75)
        } else {
            emit("guest_mode_entered", [("entry_point", .string("first_launch"))])
            if random.chance(0.3) { build(newFlow: true, openProbability: 0.5) }
        }
        endSessionOrCrash()
    }

    mutating func laterSession() {
        beginSession(cold: random.chance(0.6))
        refreshCredits()
        filler()
        if context.userState == "guest", random.chance(0.35) {
            gate(random.pick(["account_required", "guest_save_required", "share_link_account_required", "guest_customize_moves"]), blocked: true)
            if random.chance(0.6) { signup() }
        }
        maybeError()
        if random.chance(0.4) { build(newFlow: flows.isEmpty || random.chance(0.3), openProbability: 0.9) }
        if random.chance(0.3) { practice() }
        if random.chance(0.1) { mastery() }
        if random.chance(0.08) { share() }
        if !simulator.sharedLinks.isEmpty, random.chance(0.12) { receive() }
        subscriptionLife()
        filler()
        endSessionOrCrash()
    }

    mutating func filler() {
        for _ in 0..<random.int(in: 1...4) { show() }
    }

    /// CH08 §5: free credits come back monthly (here: on the first session 30 days after the last).
    mutating func refreshCredits() {
        guard context.timeMilliseconds - creditsRefreshedMs >= 30 * 86_400_000 else { return }
        creditsRefreshedMs = context.timeMilliseconds
        guard context.userState == "guest" || context.userState == "free" else { return }
        let refresh: [(String, PropertyValue)] = [("credits_added", .integer(3 - credits)), ("credits_total_after", .integer(3))]
        emit("practice_credit_refreshed", refresh, after: 0...2)
        if faults.remove(.doubleCreditRefresh) != nil {
            // The fault: the monthly refresh fires twice.
            emit("practice_credit_refreshed", [("credits_added", .integer(0)), ("credits_total_after", .integer(3))], after: 1...60)
            record(.doubleCreditRefresh, cited: Array(current.suffix(2)))
        }
        credits = 3
    }

    mutating func signup() {
        emit("signup_viewed")
        guard random.chance(0.75) else { return maybeSignupFailed() }
        emit("signup_success", [("previous_user_state", .string("guest"))])
        context.userID = SyntheticUUID.v4(&random)
        context.userState = "free"
    }

    /// F0 steps 3–5 (builder or library, draft, save), with builder performance.
    mutating func build(newFlow: Bool, openProbability: Double) {
        guard random.chance(openProbability) else { return }
        if random.chance(0.6) {
            emit("flow_builder_opened")
            emit("perf_flow_builder_loaded", [("fps_bucket", .string(random.pick(["good", "good", "good", "ok", "poor"]))), ("duration_ms", builderLoadTime())], after: 0...5)
        } else {
            emit("library_viewed")
        }
        guard random.chance(0.8) else { return }
        let draft = SyntheticUUID.v4(&random)
        emit("flow_draft_created", [("flow_draft_id", .string(draft))])
        for _ in 0..<random.int(in: 0...3) { emit("builder_node_added") }
        builderDetails()
        guard random.chance(0.75) else { return }
        emit("flow_save_attempt", [("flow_draft_id", .string(draft)), ("current_saved_flow_count", .integer(Int64(flows.count)))], after: 20...900)
        // CH08 §3: a guest may be asked to sign up; Free is capped at 2 saved flows.
        let gateName: String? = context.userState == "guest" && random.chance(0.1) ? "guest_save_required"
            : context.userState == "free" && flows.count >= 2 && random.chance(0.5) ? "free_saved_flows_cap" : nil
        if let gateName {
            gate(gateName, blocked: true)
            emit("flow_saved_blocked", [("gate_name", .string(gateName)), ("current_saved_flow_count", .integer(Int64(flows.count)))], after: 0...0)
            return
        }
        let flow = newFlow || flows.isEmpty ? SyntheticUUID.v4(&random) : random.pick(flows)
        if !flows.contains(flow) { flows.append(flow) }
        emit("flow_saved_success", [("flow_id", .string(flow)), ("branches_count", .integer(random.int(in: 0...6)))] + flowComplexity(), after: 0...3)
    }

    /// F3: entry attempt and the practice gate (CH33 §6.8, §8.2): Trial/Pro are allowed, Free
    /// spends a monthly credit while any remain, else sees the paywall, may upgrade, practises.
    mutating func practice() {
        emit("practice_entry_attempt", [("target_type", .string("flow"))])
        let subscribed = context.userState == "trial" || context.userState == "pro"
        if subscribed {
            emit("practice_gate_result", [("gate_name", .string("practice_credit")), ("result", .string("allowed"))], removing: ["credits_remaining"], after: 0...1)
            session(targetType: "flow", after: 0...5)
            return
        }
        if credits > 0 {
            emit("practice_gate_result", [("gate_name", .string("practice_credit")), ("result", .string("allowed")), ("credits_remaining", .integer(credits))], after: 0...1)
            credits -= 1
            emit("practice_credit_spent", [("credits_remaining_after", .integer(credits)), ("source", .string("practice_tab"))], after: 0...1)
            session(targetType: "flow", after: 0...5)
            return
        }
        emit("practice_gate_result", [("gate_name", .string("practice_pro_required")), ("result", .string("blocked")), ("credits_remaining", .integer(0))], after: 0...1)
        emit("paywall_viewed", [("paywall_id", .string("practice")), ("entry_point", .string(random.pick(["practice_tab", "practice_tab", "flow_detail", "mastery"])))], after: 0...2)
        guard random.chance(0.35) else {
            if random.chance(0.5) { emit("paywall_cta_tapped", [("paywall_id", .string("practice")), ("cta", .string("not_now"))], after: 2...60) }
            return
        }
        if random.chance(0.8) {
            emit("paywall_cta_tapped", [("paywall_id", .string("practice")), ("cta", .string("start_trial"))], after: 2...60)
            emit("trial_started", after: 2...30)
            context.userState = "trial"
            trialStartedMs = context.timeMilliseconds
        } else {
            emit("paywall_cta_tapped", [("paywall_id", .string("practice")), ("cta", .string("subscribe"))], after: 2...60)
            emit("subscription_purchased", [("via", .string("paywall"))], after: 2...30)
            context.userState = "pro"
        }
        guard random.chance(0.8) else { return }
        session(targetType: "flow")
    }

    mutating func session(targetType: String, targetID: String? = nil, after seconds: ClosedRange<Int64> = 2...90) {
        let id = SyntheticUUID.v4(&random)
        emit("practice_session_started", [("practice_session_id", .string(id)), ("target_type", .string(targetType))]
             + (targetID.map { [("target_id", PropertyValue.string($0))] } ?? []), after: seconds)
        if random.chance(0.75) {
            emit("practice_session_completed", [("practice_session_id", .string(id)), ("actual_duration_seconds", .integer(random.int(in: 60...1_800)))], after: 60...1_800)
        } else {
            emit("practice_session_interrupted", [("practice_session_id", .string(id)), ("elapsed_seconds", .integer(random.int(in: 5...600)))], after: 5...600)
        }
    }

    /// F4: plan, schedule, practice from the plan — all of one plan (F4 links its steps by the
    /// plan's id, catalog 2.0.0): the created plan's id, read back from its line, is the
    /// schedule's and the practice's target, so the random stream is the same as before.
    mutating func mastery() {
        emit("mastery_plan_created")
        let plan = Self.stringProperty("mastery_plan_id", in: current[current.count - 1].text)
        guard random.chance(0.6) else { return }
        emit("mastery_schedule_saved", plan.map { [("mastery_plan_id", PropertyValue.string($0))] } ?? [])
        maybeMaintenance()
        if random.chance(0.5) { session(targetType: "mastery_plan", targetID: plan) }
    }

    /// The string value of property `key` in an event line the factory wrote (`"key":"value"`).
    static func stringProperty(_ key: String, in line: String) -> String? {
        guard let start = line.firstRange(of: "\"\(key)\":\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// F2 steps 1–2 on the sender's side.
    mutating func share() {
        let flow = flows.isEmpty ? SyntheticUUID.v4(&random) : random.pick(flows)
        emit("share_link_create_tapped", [("flow_id", .string(flow))])
        guard random.chance(0.85) else {
            gate("share_link_daily_cap", blocked: true)
            emit("share_link_create_blocked", [("gate_name", .string("share_link_daily_cap"))], after: 0...0)
            return
        }
        let link = SyntheticUUID.v4(&random)
        emit("share_link_created", [("share_link_id", .string(link)), ("flow_id", .string(flow))], after: 0...3)
        createdLinks.append((link, context.timeMilliseconds))
        // Some senders test their own link: not a reception (F2 counts other actors only).
        if random.chance(0.2) { openLink(link) }
    }

    /// F2 steps 3–5 on the receiver's side, for a link another install created before now.
    mutating func receive() {
        let existing = simulator.sharedLinks.filter { $0.createdMs < context.timeMilliseconds }
        guard !existing.isEmpty else { return }
        openLink(random.pick(existing).id)
    }

    mutating func openLink(_ link: String) {
        emit("share_link_opened", [("share_link_id", .string(link))])
        // CH18: a Free inbox holds 10 imports; at the cap the import is refused with the gate events.
        if context.userState == "free" || context.userState == "guest", random.chance(0.1) {
            gate("free_inbox_cap", blocked: true)
            return
        }
        let importID = SyntheticUUID.v4(&random)
        emit("import_received", [("import_id", .string(importID)), ("share_link_id", .string(link))], after: 0...3)
        guard random.chance(0.6) else { return }
        // The saved import is a flow of the receiver's library; later edits of it save it again
        // (not F2's success), and new flows of their own follow in later sessions (the success).
        let newFlow = SyntheticUUID.v4(&random)
        emit("import_saved_to_library_success", [("import_id", .string(importID)), ("new_flow_id", .string(newFlow))], after: 10...3_600)
        flows.append(newFlow)
    }

    /// Trials convert or lapse; subscribers sometimes cancel.
    mutating func subscriptionLife() {
        if context.userState == "trial", let started = trialStartedMs, context.timeMilliseconds - started > 6 * 86_400_000 {
            if random.chance(0.5) {
                // The trial renews into a subscription: not a paywall purchase.
                emit("subscription_purchased", [("via", .string("settings"))])
                context.userState = "pro"
            } else {
                context.userState = "free"
            }
            trialStartedMs = nil
        } else if context.userState == "pro", random.chance(0.08) {
            emit("subscription_cancelled")
            context.userState = "free"
        } else if random.chance(0.05) {
            let paywall = random.pick(["saved_flows", "sharing", "other"])
            emit("paywall_viewed", [("paywall_id", .string(paywall)), ("entry_point", .string(random.pick(["library", "share_link", "settings", "gate_prompt"])))])
            if random.chance(0.3) {
                emit("paywall_cta_tapped", [("paywall_id", .string(paywall)), ("cta", .string("restore"))], after: 2...30)
                if random.chance(0.6) { emit("restore_purchases_failed", after: 1...20) } else { emit("restore_purchases_success", after: 1...20) }
            } else if context.userState != "pro", context.userState != "trial", random.chance(0.25) {
                // §7.6: a purchase straight from a paywall (so the monetization panels and churn have data).
                emit("paywall_cta_tapped", [("paywall_id", .string(paywall)), ("cta", .string("subscribe"))], after: 2...30)
                emit("subscription_purchased", [("via", .string("paywall"))], after: 2...30)
                context.userState = "pro"
            } else if random.chance(0.5) {
                emit("paywall_cta_tapped", [("paywall_id", .string(paywall)), ("cta", .string("not_now"))], after: 2...30)
            }
        }
    }

    mutating func record(_ fault: SimulatedFault, cited: [SimulatedEvent]) {
        injected.append(InjectedFault(fault: fault, installID: context.installID, sessionID: cited.first?.sessionID,
                                      eventIDs: cited.map(\.eventID), eventName: cited.first?.name ?? ""))
    }

    // MARK: - Arrival

    /// The order the lines reach the file: mostly as they happened, but some sessions were
    /// offline and arrive after the next one, some neighbours are swapped, and some lines are
    /// retried (written twice).
    func arrivalOrder(_ random: inout SeededRandom) -> [String] {
        var order: [String] = []
        var deferred: [String] = []
        for session in sessions.map({ $0.map(\.text) }) {
            if random.chance(0.1) {
                deferred += session
                continue
            }
            order += session
            order += deferred
            deferred = []
        }
        order += deferred
        if order.count > 2 {
            for index in 0..<(order.count - 1) where random.chance(0.03) { order.swapAt(index, index + 1) }
        }
        var out: [String] = []
        out.reserveCapacity(order.count + order.count / 50)
        for line in order {
            out.append(line)
            if random.chance(0.02) { out.append(line) }
        }
        return out
    }
}
