// Sends one event the way an app does — typed event, on-device queue, signed gzip upload — and
// exits 0 only when the server acknowledged it. Arguments: ENDPOINT KEY_ID QUEUE_PATH; the secret
// in HANDZ_SECRET_HEX (an environment variable, so `ps` does not show it). Prints counts and
// statuses only, never the secret.
import Foundation
import HandzAnalyticsClient

let arguments = CommandLine.arguments
guard arguments.count == 4, let endpoint = URL(string: arguments[1]),
      let secretHex = ProcessInfo.processInfo.environment["HANDZ_SECRET_HEX"] else {
    FileHandle.standardError.write(Data("usage: HANDZ_SECRET_HEX=... ConsumerApp ENDPOINT KEY_ID QUEUE_PATH\n".utf8))
    exit(2)
}
// The key as `handz-analytics keys create` printed it; a malformed one is refused here, by code.
let configuration: ClientConfiguration
do {
    configuration = try ClientConfiguration(endpoint: endpoint, keyID: arguments[2], secretHex: secretHex, queuePath: arguments[3])
} catch {
    FileHandle.standardError.write(Data("consumer: \(error)\n".utf8))
    exit(2)
}
let client = try AnalyticsClient(configuration: configuration, context: StaticDeviceContext(), platform: nil)
client.track(AppOpen(startType: .cold, launchSource: .direct))
let delivered = client.drain(timeout: 30)
let diagnostics = client.diagnostics()
client.shutdown()
print("consumer: queued \(diagnostics.queuedEvents), last upload status \(diagnostics.lastUploadStatus.map(String.init) ?? "none")")
exit(delivered && diagnostics.lastUploadStatus == 200 ? 0 : 1)
