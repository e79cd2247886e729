// The fixture's analytics client: only the call shapes the lint inspects, so the app compiles.
// The event structs stand in for the generated typed API (one struct per catalogued event).

public protocol AnalyticsEvent: Sendable {}

public final class Analytics: Sendable {
    public static let shared = Analytics()

    public func track(_ event: some AnalyticsEvent) {}
    public func track(_ name: String, properties: [String: any Sendable] = [:]) {}
    public func logEvent(_ name: String, parameters: [String: any Sendable]) {}
}

public struct AppOpen: AnalyticsEvent {
    public enum StartType: Sendable { case cold, warm }
    public enum LaunchSource: Sendable { case direct, push, deepLink }
    public var startType: StartType
    public var launchSource: LaunchSource
}

/// Not generated from the catalog: no `legacy_export` event exists.
public struct LegacyExport: AnalyticsEvent {
    public var format: String
}
