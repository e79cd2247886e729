/// A call that emits an analytics event, as the app writes it. The defaults cover the generated
/// typed API, `analytics.track(AppOpen(startType: .cold, launchSource: .direct))`, and the
/// string-based `track("app_open", properties: ["start_type": "cold"])`, on any receiver.
public struct CallShape: Sendable, Equatable {
    /// The function or method name (`track`, `logEvent`); the receiver does not matter.
    public var name: String
    /// The label of the argument holding the event; `nil` means the first argument, whatever its label.
    public var eventLabel: String?
    /// The label of the argument holding the properties dictionary.
    public var propertiesLabel: String

    public init(name: String, eventLabel: String? = nil, propertiesLabel: String = "properties") {
        self.name = name
        self.eventLabel = eventLabel
        self.propertiesLabel = propertiesLabel
    }

    /// `track(…)`: both the typed and the string-based shape.
    public static let track = CallShape(name: "track")
}
