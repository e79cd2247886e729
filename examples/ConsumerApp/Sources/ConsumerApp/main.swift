// Sends one event the way an app does — typed event, on-device queue, signed gzip upload — and
// exits 0 only when the server acknowledged it. Arguments: ENDPOINT KEY_ID QUEUE_PATH; the secret
// in HANDZ_SECRET_HEX (an environment variable, so `ps` does not show it). Prints counts and
// statuses only, never the secret.
//
// The function between the markers is the code of the first hour, verbatim
// (HandzAnalyticsClient documentation, "The first hour", step 3; a test holds the two together).
import Foundation
import HandzAnalyticsClient

// BEGIN first-hour
/// Called once at launch (in the App's init on iOS). The key is the pair `handz-analytics keys
/// create` printed; the queue lives in Application Support on iOS.
func startAnalytics(endpoint: URL, keyID: String, secretHex: String, queuePath: String) throws -> AnalyticsClient {
    let configuration = try ClientConfiguration(endpoint: endpoint, keyID: keyID, secretHex: secretHex, queuePath: queuePath)
    let analytics = try AnalyticsClient(configuration: configuration)
    analytics.track(AppOpen(startType: .cold, launchSource: .direct))
    return analytics
}
// END first-hour

let arguments = CommandLine.arguments
guard arguments.count == 4, let endpoint = URL(string: arguments[1]),
      let secretHex = ProcessInfo.processInfo.environment["HANDZ_SECRET_HEX"] else {
    FileHandle.standardError.write(Data("usage: HANDZ_SECRET_HEX=... ConsumerApp ENDPOINT KEY_ID QUEUE_PATH\n".utf8))
    exit(2)
}
// A malformed key is refused at configuration, by code (invalid_key_id, invalid_secret).
let client: AnalyticsClient
do {
    client = try startAnalytics(endpoint: endpoint, keyID: arguments[2], secretHex: secretHex, queuePath: arguments[3])
} catch {
    FileHandle.standardError.write(Data("consumer: \(error)\n".utf8))
    exit(2)
}

// An app that pins its catalog (The first hour, step 2): the typed events in Analytics/ were
// generated into the app with `codegen swift --for-app`, and the client validates and labels its
// events with the catalog they came from. Its own queue file: one queue per client.
var pinned = try ClientConfiguration(endpoint: endpoint, keyID: arguments[2], secretHex: secretHex, queuePath: arguments[3] + ".pinned")
pinned.catalog = AppAnalyticsCatalog.catalog
let pinnedClient = try AnalyticsClient(configuration: pinned)
pinnedClient.track(ScreenViewed(screenName: "home", entryPoint: .home))

var delivered = true
for analytics in [client, pinnedClient] {
    delivered = analytics.drain(timeout: 30) && delivered
    let diagnostics = analytics.diagnostics()
    analytics.shutdown()
    print("consumer: queued \(diagnostics.queuedEvents), last upload status \(diagnostics.lastUploadStatus.map(String.init) ?? "none")")
    delivered = delivered && diagnostics.lastUploadStatus == 200
}
exit(delivered ? 0 : 1)
