/// Journey parts that give every CH33 §7 dashboard panel data: errors, failed signups, education
/// concepts, builder limits and the sequence editor, flow complexity, and maintenance plans
/// (practice gates and credits, paywall CTAs and the free inbox cap come with the QA sequences in
/// InstallJourney, which emit them the way CH33 §8.2 requires).
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

    /// §7.3: the branch limit and the sequence editor while building. The branch limit comes with
    /// its gate pair, `branch_limit` blocked (CH33 §6.5, the QA rule `builder.branch_limit_gated`).
    mutating func builderDetails() {
        if random.chance(0.1) {
            emit("builder_branch_limit_hit")
            gate("branch_limit", blocked: true)
        }
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

    /// §7.5: a maintenance plan after a mastery plan.
    mutating func maybeMaintenance() {
        if random.chance(0.3) { emit("maintenance_plan_created") }
    }
}
