/// What the spec itself requires the catalog to contain, transcribed from CH33 so that
/// `catalog lint` fails if an entry is ever dropped.
public enum SpecInventory {
    /// The 73 events of CH33 §6 "Canonical Event Catalog (V1)", in spec order.
    public static let section6Events: [String] = [
        // §6.1
        "app_open", "app_background", "screen_viewed",
        // §6.2
        "onboarding_viewed", "onboarding_completed", "education_flow_concept_opened",
        // §6.3
        "guest_mode_entered", "signup_viewed", "signup_method_selected", "signup_success", "signup_failed", "login_success",
        // §6.4
        "moves_library_viewed", "move_selected", "custom_move_create_started", "custom_move_create_saved",
        "custom_move_edit_saved", "move_revert_used",
        // §6.5
        "flow_builder_opened", "flow_draft_created", "builder_node_added", "builder_edge_created", "builder_branch_limit_hit",
        "builder_node_reordered", "builder_root_replaced", "sequence_editor_opened", "sequence_editor_saved",
        "flow_save_attempt", "flow_saved_success", "flow_saved_blocked",
        // §6.6
        "library_viewed", "folder_created", "flow_opened", "flow_duplicated",
        // §6.7
        "share_sheet_opened", "share_link_create_tapped", "share_link_created", "share_link_create_blocked",
        "share_link_opened", "import_received", "inbox_viewed", "import_opened", "import_saved_to_library_attempt",
        "import_saved_to_library_success", "import_saved_to_library_blocked",
        // §6.8
        "practice_entry_attempt", "practice_gate_result", "practice_session_started", "practice_path_presented",
        "practice_session_interrupted", "practice_session_completed", "practice_credit_spent", "practice_credit_refreshed",
        "practice_demo_started",
        // §6.9
        "gameplan_created", "mastery_plan_created", "mastery_plan_updated", "maintenance_plan_created",
        "maintenance_overload_warning_shown", "maintenance_session_completed",
        // §6.10
        "paywall_viewed", "paywall_cta_tapped", "trial_started", "subscription_purchased", "subscription_cancelled",
        "restore_purchases_success", "restore_purchases_failed",
        // §6.11
        "error_shown", "perf_flow_builder_loaded", "perf_flow_render_time", "crash_reported",
        // §6.12
        "abuse_rate_limit_triggered", "abuse_warning_ladder_step",
    ]

    /// CH33 §1 "Attempt Events Required".
    public static let attemptEvents = ["gate_attempt", "gate_result"]

    /// The §3.2 global properties every event carries, plus the pipeline's `event_id`.
    public static let requiredGlobals = [
        "event_name", "event_time_utc", "app_version", "build_number", "platform", "os_version", "device_model",
        "locale", "timezone", "session_id", "install_id", "user_state", "analytics_opt_in", "network_state", "event_id",
    ]

    /// The §3.2 optional common properties and the §11 experiment properties.
    public static let commonProperties = ["screen_name", "entry_point", "duration_ms", "error_code", "gate_name"]
    public static let experimentProperties = ["experiment_id", "variant", "flag_state_snapshot"]

    /// The §5.1 funnels with the step names the spec gives them.
    public static let funnels: [String: [String]] = [
        "F0": ["app_open", "onboarding_viewed", "flow_builder_opened|library_viewed", "flow_draft_created", "flow_saved_success"],
        "F1": ["guest_mode_entered", "guest_restriction_hit", "signup_viewed", "signup_success"],
        "F2": ["share_link_create_tapped", "share_link_created", "share_link_opened", "import_received", "import_saved_to_library"],
        "F3": ["practice_entry_attempt", "paywall_viewed", "trial_started|subscription_purchased", "practice_session_started"],
        "F4": ["mastery_plan_created", "mastery_plan_scheduled", "mastery_practice_started"],
    ]

    /// The KPI minimum set of CH33 §5.2, by the id `kpis.yaml` gives each.
    public static let kpis: [String] = [
        "activation_rate_24h", "activation_rate_7d", "time_to_first_flow", "retention_d1", "retention_d7", "retention_d30",
        "practice_retention", "weekly_flows_edited_per_active_user", "weekly_practice_minutes_per_practicing_user",
        "branches_per_flow", "paywall_view_rate", "trial_start_rate", "trial_to_paid_conversion", "monthly_churn",
        "share_link_create_rate", "share_link_open_to_import_rate", "import_to_saved_rate", "crash_free_sessions",
        "builder_fps_good_sessions",
    ]

    /// CH08 §9 entitlement hooks and CH30 telemetry, catalogued as disabled placeholders.
    public static let placeholderEvents = [
        "entitlement_snapshot_loaded", "gate_shown", "upgrade_clicked", "purchase_started", "purchase_success",
        "purchase_failed", "restore_clicked", "restore_success", "restore_failed", "credit_spent", "downgrade_detected",
        "limit_counter_incremented", "ladder_level_shown", "action_blocked", "cooldown_started", "cooldown_ended",
        "upgrade_cta_clicked", "user_deleted_item_to_resolve_limit",
    ]
}
