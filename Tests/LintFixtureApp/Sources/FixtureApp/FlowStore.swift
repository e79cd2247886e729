// Emits no analytics, so its logging is not the lint's business (CH33 §1 applies to files that do).
struct FlowStore {
    func load() {
        print("loading flows")
    }
}
