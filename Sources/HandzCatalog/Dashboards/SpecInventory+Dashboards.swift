extension SpecInventory {
    /// The six dashboards of CH33 §7 "Dashboard Requirements (V1)" and their bullets, as the spec
    /// writes them: `catalog lint` fails if a dashboard or a bullet has no panel.
    public static let dashboards: [(id: String, spec: String, bullets: [String])] = [
        ("launch_health", "CH33 §7.1", [
            "Crash-free sessions % (last 24h, 7d rolling)",
            "App_open count, unique users, sessions",
            "Error_shown by error_code (top 10)",
            "Perf_flow_builder_loaded: p50/p90 duration_ms, fps_bucket distribution",
            "Signup_success rate and signup_failed by method/error_code",
        ]),
        ("activation_onboarding", "CH33 §7.2", [
            "F0 activation conversion with drop-off per step",
            "Median time-to-first-flow",
            "Education_flow_concept_opened rate; correlation with activation",
            "F1 (Guest -> signup) funnel",
        ]),
        ("builder_usage", "CH33 §7.3", [
            "Flows created per day and cumulative",
            "Distribution: nodes_count, edges_count, branches_count, dangling_paths_count",
            "Builder_branch_limit_hit count",
            "Sequence_editor_saved rate",
        ]),
        ("sharing_loop", "CH33 §7.4", [
            "share_link_created per day by user_state",
            "share_link_opened -> import_received -> import_saved_to_library_success conversion",
            "Inbox cap hits (free inbox cap=10) and resulting signup/upgrade behavior",
        ]),
        ("practice_mastery", "CH33 §7.5", [
            "practice_entry_attempt and practice_gate_result breakdown",
            "practice_session completion rate and duration distribution",
            "Credits: practice_credit_spent distribution; % users exhausting credits",
            "Mastery/maintenance adoption rates",
        ]),
        ("monetization", "CH33 §7.6", [
            "paywall_viewed by paywall_id and entry_point",
            "paywall_cta_tapped rates",
            "trial_started count and trial-to-paid conversion",
            "Churn (subscription_cancelled) over time",
        ]),
    ]
}
