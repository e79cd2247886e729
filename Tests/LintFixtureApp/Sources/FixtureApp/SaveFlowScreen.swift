import Foundation

// Analytics for the flow builder's save button, with one mistake per lint rule.
struct SaveFlowScreen {
    let analytics = Analytics.shared

    func appeared() {
        analytics.track(AppOpen(startType: .cold, launchSource: .direct))
        analytics.track("screen_viewed", properties: ["screen_name": "flows/builder"])
    }

    func saved(flowID: UUID, nodes: Int, outcome: String, contact: String) {
        analytics.track("flow_saved_succes", properties: ["flow_id": flowID.uuidString])
        analytics.track("flow_saved_success", properties: [
            "flow_id": flowID.uuidString,
            "nodes_count": nodes,
            "user_email": contact,
            "colour": "red",
        ])
        analytics.track("flow_\(outcome)")
        analytics.track("purchase_started", properties: ["plan": "annual"])
        analytics.track("screen_viewed", properties: ["screen_name": "bob@example.com"])
        analytics.track(LegacyExport(format: "csv"))
        Analytics.shared.logEvent("share_link_created", parameters: ["phone": contact])
        print("saved flow \(flowID)")
        #if DEBUG
        debugPrint("saved flow", flowID)
        #endif
    }
}
