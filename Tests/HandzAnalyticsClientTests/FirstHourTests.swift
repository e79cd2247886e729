import Foundation
import HandzAnalyticsClient
import HandzAnalyticsCore
import HandzTestSupport
import Testing

/// The first hour (issue 37 §5): the system's device context in the catalog's forms, a client
/// made from a configuration alone whose first event the real server stores, and the guide's
/// code equal to the example app that CI builds and runs.
@Suite(.serialized) struct FirstHourTests {
    @Test("the system's device context gives values the catalog takes, read from this machine")
    func systemContextIsValid() throws {
        let context = SystemDeviceContext()
        #expect(StringFormat.appVersion.matches(context.appVersion), "\(context.appVersion)")
        #expect(StringFormat.buildNumber.matches(context.buildNumber), "\(context.buildNumber)")
        #expect(StringFormat.osVersion.matches(context.osVersion), "\(context.osVersion)")
        #expect(StringFormat.deviceModel.matches(context.deviceModel), "\(context.deviceModel)")
        #expect(StringFormat.locale.matches(context.locale), "\(context.locale)")
        #expect(RepositoryCatalog.catalog.timeZones.contains(context.timeZone), "\(context.timeZone)")
        var machine = utsname()
        uname(&machine)
        let reported = withUnsafeBytes(of: &machine.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(context.deviceModel == (reported == "aarch64" ? "arm64" : reported), "the machine it runs on")

        // The initialiser's versions win when the catalog takes them; a malformed one does not.
        #expect(SystemDeviceContext(appVersion: "2.7.1", buildNumber: "903").appVersion == "2.7.1")
        #expect(SystemDeviceContext(appVersion: "v2.7-beta").appVersion == "0.0.0")
        #expect(SystemDeviceContext(buildNumber: "903").buildNumber == "903")

        // The plan state, set from any thread.
        #expect(context.userState == .guest)
        DispatchQueue.concurrentPerform(iterations: 8) { index in context.userState = index.isMultiple(of: 2) ? .pro : .trial }
        #expect([.pro, .trial].contains(context.userState))
    }

    @Test("locales become language, script and region; extensions are left out; one the format cannot take falls back to its language")
    func locales() {
        let cases: [(String, String)] = [("en_US", "en_US"), ("en_US@rg=gbzzzz", "en_US"), ("zh-Hans-CN", "zh_Hans_CN"), ("pt_BR", "pt_BR"),
                                         ("fr", "fr"), ("es_419", "es_419"), ("de_DE_POSIX", "de")]
        for (identifier, expected) in cases {
            #expect(SystemDeviceContext.catalogLocale(Locale(identifier: identifier)) == expected, "\(identifier)")
        }
    }

    @Test("a client made from a configuration alone: its first event is accepted and stored with the system's context")
    func configurationAloneDelivers() throws {
        let world = try ServerWorld()
        try world.start()
        let queue = world.directory.appendingPathComponent("queue.sqlite")
        let configuration = try ClientConfiguration(endpoint: world.endpoint, keyID: world.ingest.id, secretHex: world.ingest.secretHex, queuePath: queue.path)
        let analytics = try AnalyticsClient(configuration: configuration)
        analytics.track(AppOpen(startType: .cold, launchSource: .direct))
        #expect(analytics.drain(timeout: 30))
        analytics.shutdown()
        let context = SystemDeviceContext()
        #expect(try world.scalar("SELECT COUNT(*) FROM events WHERE event_name = 'app_open' AND device_model = '\(context.deviceModel)' AND os_version = '\(context.osVersion)' AND locale = '\(context.locale)'") == 1)
    }

    @Test("The first hour's code is the example app's, verbatim")
    func guideMatchesTheExampleApp() throws {
        let app = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("examples/ConsumerApp/Sources/ConsumerApp/main.swift"), encoding: .utf8)
        let guide = try String(contentsOf: RepositoryCatalog.root.appendingPathComponent("Sources/HandzAnalyticsClient/HandzAnalyticsClient.docc/TheFirstHour.md"), encoding: .utf8)
        let begin = try #require(app.range(of: "// BEGIN first-hour\n")), end = try #require(app.range(of: "// END first-hour"))
        let code = String(app[begin.upperBound..<end.lowerBound])
        #expect(code.contains("AnalyticsClient(configuration: configuration)") && code.contains(".track("))
        #expect(guide.contains("```swift\nimport HandzAnalyticsClient\n\n" + code + "```"), "TheFirstHour.md step 3 differs from examples/ConsumerApp")
    }
}
