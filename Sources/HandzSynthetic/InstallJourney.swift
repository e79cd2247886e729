import HandzAnalyticsCore

/// One install's life in the simulation: a first session through onboarding and the builder,
/// then returning sessions on later days with practice, paywall, mastery, sharing and signup.
struct InstallJourney {
    let simulator: JourneySimulator
    var random: SeededRandom
    var context: EventContext
    /// Lines per session, in the order they happened.
    var sessions: [[String]] = []
    var current: [String] = []
    var createdLinks: [String] = []
    var flows: [String] = []
    var trialStartedMs: Int64?
    let endMs: Int64

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
    }

    // MARK: - Emitting

    /// Advances the clock (a tie with probability 0.08: same millisecond as the previous event).
    mutating func advance(_ seconds: ClosedRange<Int64>) {
        if random.chance(0.08) { return }
        context.timeMilliseconds += random.int(in: seconds.lowerBound * 1000...seconds.upperBound * 1000)
    }

    mutating func emit(_ name: String, _ overrides: [(String, PropertyValue)] = [], after seconds: ClosedRange<Int64> = 2...90) {
        advance(seconds)
        current.append(simulator.line(name, context, overrides, &random))
    }

    mutating func beginSession(cold: Bool) {
        context.sessionID = SyntheticUUID.v4(&random)
        current = []
        emit("app_open", [("start_type", .string(cold ? "cold" : "warm")), ("launch_source", .string(random.pick(["direct", "direct", "push", "deep_link"])))], after: 0...0)
    }

    mutating func endSession() {
        emit("app_background", [], after: 5...600)
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
            if random.chance(0.5) {
                emit("guest_mode_entered")
            } else if random.chance(0.8) {
                signup()
            }
            build(newFlow: true, openProbability: 0.75)
        } else if random.chance(0.3) {
            build(newFlow: true, openProbability: 0.5)
        }
        if random.chance(0.03) { emit("crash_reported") }
        endSession()
    }

    mutating func laterSession() {
        beginSession(cold: random.chance(0.6))
        filler()
        if context.userState == "guest", random.chance(0.35) {
            emit("gate_result", [("result", .string("blocked"))])
            if random.chance(0.6) { signup() }
        }
        maybeError()
        maybeInboxCap()
        if random.chance(0.4) { build(newFlow: flows.isEmpty || random.chance(0.3), openProbability: 0.9) }
        if random.chance(0.3) { practice() }
        if random.chance(0.1) { mastery() }
        if random.chance(0.08) { share() }
        if !simulator.sharedLinks.isEmpty, random.chance(0.06) { receive() }
        subscriptionLife()
        filler()
        if random.chance(0.03) { emit("crash_reported") }
        endSession()
    }

    mutating func filler() {
        for _ in 0..<random.int(in: 1...4) { emit("screen_viewed") }
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
        emit(random.chance(0.6) ? "flow_builder_opened" : "library_viewed")
        if random.chance(0.6) {
            let duration = builderLoadTime()
            emit("perf_flow_builder_loaded", [("fps_bucket", .string(random.pick(["good", "good", "good", "ok", "poor"]))), ("duration_ms", duration)])
        }
        guard random.chance(0.8) else { return }
        emit("flow_draft_created")
        for _ in 0..<random.int(in: 0...3) { emit("builder_node_added") }
        builderDetails()
        guard random.chance(0.75) else { return }
        let flow = newFlow || flows.isEmpty ? SyntheticUUID.v4(&random) : random.pick(flows)
        if !flows.contains(flow) { flows.append(flow) }
        emit("flow_saved_success", [("flow_id", .string(flow)), ("branches_count", .integer(random.int(in: 0...6)))] + flowComplexity(), after: 20...900)
    }

    /// F3: entry attempt, paywall when blocked, trial or purchase, a practice session.
    mutating func practice() {
        emit("practice_entry_attempt", [("target_type", .string("flow"))])
        let subscribed = context.userState == "trial" || context.userState == "pro"
        if !subscribed, random.chance(0.6) {
            emit("paywall_viewed", [("paywall_id", .string("practice")), ("entry_point", .string(random.pick(["practice_tab", "practice_tab", "flow_detail", "mastery"])))])
            let converts = random.chance(0.35)
            paywallCTA("practice", converted: converts)
            if converts {
                if random.chance(0.8) {
                    emit("trial_started")
                    context.userState = "trial"
                    trialStartedMs = context.timeMilliseconds
                } else {
                    emit("subscription_purchased")
                    context.userState = "pro"
                }
            } else {
                return
            }
        }
        guard random.chance(0.8) else { return }
        guard practiceGate(subscribed: context.userState == "trial" || context.userState == "pro") else { return }
        session(targetType: "flow")
    }

    mutating func session(targetType: String) {
        let id = SyntheticUUID.v4(&random)
        emit("practice_session_started", [("practice_session_id", .string(id)), ("target_type", .string(targetType))])
        if random.chance(0.75) {
            emit("practice_session_completed", [("practice_session_id", .string(id)), ("actual_duration_seconds", .integer(random.int(in: 60...1_800)))], after: 60...1_800)
        } else {
            emit("practice_session_interrupted", [("practice_session_id", .string(id)), ("elapsed_seconds", .integer(random.int(in: 5...600)))], after: 5...600)
        }
    }

    /// F4: plan, schedule, practice from the plan.
    mutating func mastery() {
        emit("mastery_plan_created")
        guard random.chance(0.6) else { return }
        emit("mastery_schedule_saved")
        maybeMaintenance()
        if random.chance(0.5) { session(targetType: "mastery_plan") }
    }

    /// F2 steps 1–2 on the sender's side.
    mutating func share() {
        emit("share_link_create_tapped")
        guard random.chance(0.85) else { return }
        let link = SyntheticUUID.v4(&random)
        createdLinks.append(link)
        emit("share_link_created", [("share_link_id", .string(link))])
        // Some senders test their own link: the per-install F2 then reaches its later steps.
        if random.chance(0.2) { openLink(link) }
    }

    /// F2 steps 3–5 on the receiver's side, for a link another install created.
    mutating func receive() {
        openLink(random.pick(simulator.sharedLinks))
    }

    mutating func openLink(_ link: String) {
        emit("share_link_opened", [("share_link_id", .string(link))])
        guard random.chance(0.7) else { return }
        let importID = SyntheticUUID.v4(&random)
        emit("import_received", [("import_id", .string(importID)), ("share_link_id", .string(link))])
        guard random.chance(0.6) else { return }
        emit("import_saved_to_library_success", [("import_id", .string(importID))], after: 10...3_600)
    }

    /// Trials convert or lapse; subscribers sometimes cancel.
    mutating func subscriptionLife() {
        if context.userState == "trial", let started = trialStartedMs, context.timeMilliseconds - started > 6 * 86_400_000 {
            if random.chance(0.5) {
                emit("subscription_purchased")
                context.userState = "pro"
            } else {
                context.userState = "free"
            }
            trialStartedMs = nil
        } else if context.userState == "pro", random.chance(0.04) {
            emit("subscription_cancelled")
            context.userState = "free"
        } else if random.chance(0.05) {
            let paywall = random.pick(["saved_flows", "sharing", "other"])
            emit("paywall_viewed", [("paywall_id", .string(paywall)), ("entry_point", .string(random.pick(["library", "share_link", "settings", "gate_prompt"])))])
            paywallCTA(paywall, converted: false)
        }
    }

    // MARK: - Arrival

    /// The order the lines reach the file: mostly as they happened, but some sessions were
    /// offline and arrive after the next one, some neighbours are swapped, and some lines are
    /// retried (written twice).
    func arrivalOrder(_ random: inout SeededRandom) -> [String] {
        var order: [String] = []
        var deferred: [String] = []
        for session in sessions {
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
