import Foundation
import HandzAnalyticsCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The device context the client uses unless the app passes its own (issue 37 §5): the global
/// properties of CH33 §3.2 read from the system once, when it is made, each already in the form
/// the catalog takes, so an app's first event needs nothing but a configuration.
///
/// | Property | On iOS | Elsewhere (Linux: CI, tools) |
/// |---|---|---|
/// | `app_version`, `build_number` | the main bundle's `CFBundleShortVersionString`, `CFBundleVersion` | the initialiser's, else `0.0.0` and `0` |
/// | `os_version` | `iOS` and the system's version (`ProcessInfo.operatingSystemVersion`: `iOS 18.6`) | `iOS 18.0` (see below) |
/// | `device_model` | the hardware identifier (`uname`'s machine: `iPhone15,2`; `arm64` or `x86_64` in the Simulator) | `uname`'s machine, `aarch64` written `arm64`: what a Simulator on this machine reports |
/// | `locale` | `Locale.current` as language, script and region (`en_US`, `zh_Hans_CN`; extensions such as `@rg=…` left out) | the same |
/// | `timezone` | `TimeZone.current`, or `UTC` when the catalog's list does not name it | the same |
/// | `network_state` | `online` until the platform's `NWPathMonitor` says otherwise (``PlatformSignals/networkState`` wins) | `online` |
/// | `user_state` | ``userState``, `guest` until the app sets the plan state (CH08 §1) | the same |
///
/// The catalog takes `platform: iOS` only in V1, and an `os_version` of iOS or iPadOS, so on a
/// system that is not iOS there is no true value to send: the context stands in for an iOS 18
/// Simulator on this machine, which is what the package's Linux CI and tools are. An app that
/// knows better passes its own ``DeviceContextProvider``.
///
/// `userState` may be set from any thread; the other properties do not change for the life of
/// the process.
public final class SystemDeviceContext: DeviceContextProvider, @unchecked Sendable {
    public let appVersion: String
    public let buildNumber: String
    public let osVersion: String
    public let deviceModel: String
    public let locale: String
    public let timeZone: String
    public let networkState = NetworkState.online
    private let lock = NSLock()
    private var plan = UserState.guest

    /// Reads the system. `appVersion` and `buildNumber` override the main bundle's (a tool or a
    /// test without one); each is used only if the catalog's format takes it.
    public init(appVersion: String? = nil, buildNumber: String? = nil, bundle: Bundle = .main) {
        let info = bundle.infoDictionary ?? [:]
        self.appVersion = Self.first(StringFormat.appVersion, appVersion, info["CFBundleShortVersionString"] as? String) ?? "0.0.0"
        self.buildNumber = Self.first(StringFormat.buildNumber, buildNumber, info["CFBundleVersion"] as? String) ?? "0"
        osVersion = Self.systemVersion
        deviceModel = Self.machine
        locale = Self.catalogLocale(Locale.current)
        let zone = TimeZone.current.identifier
        timeZone = CatalogSnapshot.catalog.timeZones.contains(zone) ? zone : "UTC"
    }

    /// The plan state sent as `user_state` (CH33 §3.2, CH08 §1): set it when it changes.
    public var userState: UserState {
        get { lock.withLock { plan } }
        set { lock.withLock { plan = newValue } }
    }

    private static func first(_ format: StringFormat, _ candidates: String?...) -> String? {
        candidates.compactMap { $0 }.first { format.matches($0) }
    }

    static var systemVersion: String {
        #if os(iOS)
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let text = "iOS \(version.majorVersion).\(version.minorVersion)" + (version.patchVersion > 0 ? ".\(version.patchVersion)" : "")
        return StringFormat.osVersion.matches(text) ? text : "iOS \(version.majorVersion).0"
        #else
        return "iOS 18.0"
        #endif
    }

    static var machine: String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let model = machine == "aarch64" ? "arm64" : machine
        return StringFormat.deviceModel.matches(model) ? model : "arm64"
    }

    /// `language[_Script][_REGION]`, the catalog's `locale` format: the identifier as the system
    /// writes it, its `@` keywords (`@rg=gbzzzz`, `@calendar=…`) left out and dashes written as
    /// underscores; else its language alone; else `en`.
    package static func catalogLocale(_ locale: Locale) -> String {
        let base = String(locale.identifier.split(separator: "@").first ?? "").replacingOccurrences(of: "-", with: "_")
        if StringFormat.locale.matches(base) { return base }
        if let language = locale.language.languageCode?.identifier, StringFormat.locale.matches(language) { return language }
        return "en"
    }
}

extension AnalyticsClient {
    /// A client with the system's device context (``SystemDeviceContext``) and, on iOS, the
    /// lifecycle and network signals wired: the first hour's one line (<doc:TheFirstHour>).
    public convenience init(configuration: ClientConfiguration) throws {
        try self.init(configuration: configuration, context: SystemDeviceContext())
    }
}
