/// Journey parts that give every CH33 §7 dashboard panel data: errors, failed signups, education
/// concepts, builder limits and the sequence editor, flow complexity, practice gates and credits,
/// paywall CTAs, the free inbox cap and maintenance plans.
extension InstallJourney {
    /// §7.1: errors shown during a session.
    mutating func maybeError() {
        if random.chance(0.12) { emit("error_shown") }
    }

    /// §7.2: an education concept opened during onboarding.
    mutating func maybeConcept() {
        if random.chance(0.3) { emit("education_flow_concept_opened") }
    }

    /// §7.1: a signup that did not succeed fails visibly some of the time.
    mutating func maybeSignupFailed() {
        if random.chance(0.6) { emit("signup_failed") }
    }

    /// §7.1: builder load time (ms), mostly fast with a long tail.
    mutating func builderLoadTime() -> PropertyValue {
        let base = random.int(in: 150...900)
        return .integer(random.chance(0.15) ? base + random.int(in: 500...4_000) : base)
    }

    /// §7.3: the branch limit and the sequence editor while building.
    mutating func builderDetails() {
        if random.chance(0.1) { emit("builder_branch_limit_hit") }
        if random.chance(0.25) {
            emit("sequence_editor_opened")
            if random.chance(0.7) { emit("sequence_editor_saved") }
        }
    }

    /// §7.3: the complexity a saved flow reports (small graphs, some larger).
    mutating func flowComplexity() -> [(String, PropertyValue)] {
        let nodes = random.int(in: 1...(random.chance(0.2) ? 40 : 12))
        let edges = max(0, nodes - 1 + random.int(in: 0...3))
        return [("nodes_count", .integer(nodes)), ("edges_count", .integer(edges)), ("dangling_paths_count", .integer(random.int(in: 0...min(nodes, 4))))]
    }

    /// §7.5: the gate before practice, and a credit spent when the gate allowed a free user.
    /// Whether practice may start.
    mutating func practiceGate(subscribed: Bool) -> Bool {
        if subscribed { return true }
        let credits = random.int(in: 0...3)
        emit("practice_gate_result", [("gate_name", .string(credits > 0 ? "practice_credit" : "practice_pro_required")),
                                      ("result", .string(credits > 0 ? "allowed" : "blocked")), ("credits_remaining", .integer(credits))])
        if credits > 0 { emit("practice_credit_spent", [("credits_remaining_after", .integer(credits - 1))]) }
        return credits > 0
    }

    /// §7.6: what the user tapped on a paywall.
    mutating func paywallCTA(_ paywall: String, converted: Bool) {
        if converted || random.chance(0.3) {
            emit("paywall_cta_tapped", [("paywall_id", .string(paywall)), ("cta", .string(converted ? "start_trial" : random.pick(["subscribe", "restore", "not_now"])))])
        }
    }

    /// §7.4: a free user's inbox is full (cap 10), sometimes followed by signup or upgrade.
    mutating func maybeInboxCap() {
        guard context.userState != "trial" && context.userState != "pro", random.chance(0.05) else { return }
        emit("gate_result", [("gate_name", .string("free_inbox_cap")), ("result", .string("blocked")), ("surface", .string("inbox"))])
    }

    /// §7.5: a maintenance plan after a mastery plan.
    mutating func maybeMaintenance() {
        if random.chance(0.3) { emit("maintenance_plan_created") }
    }
}
