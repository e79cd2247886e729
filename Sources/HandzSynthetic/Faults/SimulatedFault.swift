/// The instrumentation mistakes `simulate --faults` injects: one for each QA rule that events can
/// break (`catalog/qa/*.yaml`, CH33 §8.2 and §13), so every rule is tested against a clean and a
/// faulty stream. Each is injected once, at the first install that offers a place for it —
/// except `missing_funnel_step`, which drops a funnel step from every install.
public enum SimulatedFault: String, CaseIterable, Sendable, Hashable {
    case doubleAppOpen = "double_app_open"
    case missingScreenViewed = "missing_screen_viewed"
    case wrongPreviousScreen = "wrong_previous_screen"
    case missingGuestModeEntered = "missing_guest_mode_entered"
    case missingSignupViewed = "missing_signup_viewed"
    case missingGateResult = "missing_gate_result"
    case missingSaveAttempt = "missing_save_attempt"
    case missingBranchLimitGate = "missing_branch_limit_gate"
    case unresolvedSaveAttempt = "unresolved_save_attempt"
    case missingShareLinkCreated = "missing_share_link_created"
    case missingImportReceived = "missing_import_received"
    case missingPracticeGateResult = "missing_practice_gate_result"
    case missingPracticeSessionStarted = "missing_practice_session_started"
    case unfinishedPracticeSession = "unfinished_practice_session"
    case creditsNotDecrementing = "credits_not_decrementing"
    case doubleCreditRefresh = "double_credit_refresh"
    case missingPaywallViewed = "missing_paywall_viewed"
    case missingCTABeforeTrial = "missing_cta_before_trial"
    case missingCTABeforePurchase = "missing_cta_before_purchase"
    case missingRestoreResult = "missing_restore_result"
    case missingPerfEvent = "missing_perf_event"
    case eventsAfterOptOut = "events_after_opt_out"
    case uncataloguedEvent = "uncatalogued_event"
    case missingFunnelStep = "missing_funnel_step"

    /// The QA rule (`catalog/qa`) that catches this fault.
    public var rule: String {
        switch self {
        case .doubleAppOpen: "cold_start.app_open_once"
        case .missingScreenViewed: "cold_start.first_screen_viewed"
        case .wrongPreviousScreen: "screens.previous_screen_chain"
        case .missingGuestModeEntered: "guest_flow.guest_mode_before_restriction"
        case .missingSignupViewed: "guest_flow.signup_viewed_before_success"
        case .missingGateResult: "gates.attempt_then_result"
        case .missingSaveAttempt: "save_flow.blocked_emitted_together"
        case .missingBranchLimitGate: "builder.branch_limit_gated"
        case .unresolvedSaveAttempt: "save_flow.attempt_resolves"
        case .missingShareLinkCreated: "share_link.create_tapped_resolves"
        case .missingImportReceived: "share_link.open_yields_import"
        case .missingPracticeGateResult: "practice.attempt_gets_gate_result"
        case .missingPracticeSessionStarted: "practice.allowed_starts_session"
        case .unfinishedPracticeSession: "practice.session_ends"
        case .creditsNotDecrementing: "credits.spent_decrements"
        case .doubleCreditRefresh: "credits.refresh_monthly"
        case .missingPaywallViewed: "paywall.cta_after_view"
        case .missingCTABeforeTrial: "paywall.trial_after_cta"
        case .missingCTABeforePurchase: "paywall.purchase_after_cta"
        case .missingRestoreResult: "paywall.restore_logs_result"
        case .missingPerfEvent: "performance.builder_load_measured"
        case .eventsAfterOptOut: "opt_out.silence"
        case .uncataloguedEvent: "allowlist.catalogued"
        case .missingFunnelStep: "funnels.computable"
        }
    }

    /// What goes wrong, for `simulate --help` and the HandzQA docs ("Faults").
    public var summary: String {
        switch self {
        case .doubleAppOpen: "app_open tracked twice on one foreground entry"
        case .missingScreenViewed: "a session without any screen_viewed"
        case .wrongPreviousScreen: "a screen_viewed whose previous_screen_name is not the previous screen"
        case .missingGuestModeEntered: "a guest install that never sent guest_mode_entered before its guest restrictions"
        case .missingSignupViewed: "signup_success without signup_viewed"
        case .missingGateResult: "gate_attempt without its gate_result"
        case .missingSaveAttempt: "flow_saved_blocked without flow_save_attempt"
        case .missingBranchLimitGate: "builder_branch_limit_hit without its branch_limit gate_attempt"
        case .unresolvedSaveAttempt: "flow_save_attempt with neither success nor blocked"
        case .missingShareLinkCreated: "share_link_create_tapped without share_link_created"
        case .missingImportReceived: "share_link_opened without import_received"
        case .missingPracticeGateResult: "practice_entry_attempt without practice_gate_result"
        case .missingPracticeSessionStarted: "an allowed practice gate without practice_session_started"
        case .unfinishedPracticeSession: "practice_session_started never completed or interrupted"
        case .creditsNotDecrementing: "practice_credit_spent whose credits_remaining_after did not go down"
        case .doubleCreditRefresh: "practice_credit_refreshed twice in one month"
        case .missingPaywallViewed: "paywall_cta_tapped without paywall_viewed"
        case .missingCTABeforeTrial: "trial_started without a start_trial tap"
        case .missingCTABeforePurchase: "a paywall purchase without a subscribe tap"
        case .missingRestoreResult: "a restore tap without restore_purchases_success/failed"
        case .missingPerfEvent: "flow_builder_opened without perf_flow_builder_loaded"
        case .eventsAfterOptOut: "events sent after analytics was turned off (analytics_opt_in=false)"
        case .uncataloguedEvent: "an event that is not in the catalog"
        case .missingFunnelStep: "mastery_schedule_saved (F4 step 2) never sent"
        }
    }
}

/// Where a fault went: the install, the session, and the events the catching rule should cite
/// (in the order it lists them). All synthetic.
public struct InjectedFault: Sendable, Equatable {
    public var fault: SimulatedFault
    public var installID: String
    public var sessionID: String?
    public var eventIDs: [String]
    public var eventName: String
}

/// One simulated event: its wire line and what the fault injector needs to find places.
struct SimulatedEvent {
    var name: String
    var text: String
    var eventID: String
    var sessionID: String
    var userState: String
}
