import Foundation
import HandzAnalyticsCore
import HandzSynthetic
import HandzTestSupport
import Testing

/// Hostile input is rejected cleanly: no crash, no hang, one of the documented codes.
@Suite struct RobustnessTests {
    @Test("random bytes are rejected, never crash")
    func randomBytes() {
        var random = SeededRandom(seed: 42)
        var validator = makeValidator()
        for _ in 0..<20_000 {
            let length = Int(random.int(in: 0...300))
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let result = validator.validate(bytes)
            #expect(!result.isAccepted)
        }
    }

    @Test("random bytes drawn from JSON's own alphabet are rejected or valid, never crash")
    func jsonishBytes() {
        let alphabet = Array("{}[]\":,0123456789.-+eE truefalsnul\\u\"abc_".utf8)
        var random = SeededRandom(seed: 7)
        var validator = makeValidator()
        for _ in 0..<20_000 {
            let bytes = (0..<Int(random.int(in: 1...80))).map { _ in random.pick(alphabet) }
            _ = validator.validate(bytes)
        }
    }

    @Test("every truncation of a valid event is rejected as malformed_json")
    func truncations() {
        let bytes = Array(EventBuilder("flow_saved_success", includeOptional: true).json.utf8)
        var validator = makeValidator()
        #expect(validator.validate(bytes).isAccepted)
        for length in 0..<bytes.count {
            let result = validator.validate(Array(bytes[0..<length]))
            #expect(result.codes == [.malformedJSON], "prefix \(length)")
        }
    }

    @Test("every single-byte corruption of a valid event is handled")
    func corruptions() {
        let bytes = Array(EventBuilder("screen_viewed", includeOptional: true).json.utf8)
        var validator = makeValidator()
        for index in bytes.indices {
            for replacement: UInt8 in [0x00, 0x22, 0x5C, 0x7B, 0x7D, 0xFF] {
                var copy = bytes
                copy[index] = replacement
                _ = validator.validate(copy)
            }
        }
    }

    @Test("deep nesting is refused without recursion, at any depth")
    func deepNesting() {
        for depth in [70, 1_000, 16_000] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let objects = String(repeating: "{\"a\":", count: depth / 6) + "1" + String(repeating: "}", count: depth / 6)
            #expect(verdict(arrays).codes == [.tooLarge] || verdict(arrays).codes == [.notAnObject], "\(depth)")
            let inside = EventBuilder("app_open").json.replacingOccurrences(of: "\"properties\":{", with: "\"properties\":{\"x\":\(objects),")
            #expect(!verdict(inside).isAccepted)
        }
        // Unbalanced nesting is malformed whatever its depth.
        #expect(verdict(String(repeating: "[", count: 10_000)).codes == [.malformedJSON] || verdict(String(repeating: "[", count: 10_000)).codes == [.tooLarge])
    }

    @Test("huge strings and many keys stay within the limits")
    func hugeInputs() {
        var event = EventBuilder("app_open")
        event.setProperty("screen_name", String(repeating: "a", count: 30_000))
        #expect(findings(verdict(event)) == ["invalid_format /properties/screen_name"])
        var keys = EventBuilder("app_open")
        for index in 0..<2_000 { keys.setProperty("k\(index)", 1) }
        let result = verdict(keys)
        #expect(result.isTruncated)
        #expect(result.issues.count == RepositoryCatalog.catalog.limits.maxIssuesPerEvent)
    }

    @Test("one validator reused across events carries nothing from one to the next")
    func reuse() {
        var validator = makeValidator()
        let full = EventBuilder("flow_saved_success", includeOptional: true)
        var missing = EventBuilder("flow_saved_success")
        missing.setProperty("flow_id", nil)
        missing["install_id"] = nil
        for _ in 0..<3 {
            #expect(validator.validate(full).isAccepted)
            #expect(findings(validator.validate(missing)) == ["missing_property /install_id", "missing_property /properties/flow_id"])
        }
        var copy = validator
        #expect(copy.validate(full).isAccepted)
        #expect(validator.validate(missing).codes == [.missingProperty])
    }

    @Test("key order does not change the verdict, including properties before event_name")
    func keyOrder() {
        var random = SeededRandom(seed: 3)
        var validator = makeValidator()
        for name in ["app_open", "flow_saved_success", "practice_gate_result", "guest_mode_entered"] {
            var event = EventBuilder(name, includeOptional: true)
            for variant in 0..<2 {
                if variant == 1 { event.setProperty("nodes_count", -5) }
                let keys = event.object.keys.shuffled(using: &random)
                let reordered = "{" + keys.map { key in
                    "\"\(key)\":" + String(decoding: try! JSONSerialization.data(withJSONObject: event.object[key]!, options: [.fragmentsAllowed]), as: UTF8.self)
                }.joined(separator: ",") + "}"
                let propertiesFirst = "{\"properties\":" + String(decoding: try! JSONSerialization.data(withJSONObject: event.properties), as: UTF8.self)
                    + "," + reordered.dropFirst().replacingOccurrences(of: #""properties":\{[^}]*\},?"#, with: "", options: .regularExpression)
                let expected = findings(validator.validate(event.json))
                #expect(findings(validator.validate(reordered)) == expected, "\(name)")
                #expect(findings(validator.validate(propertiesFirst.hasSuffix(",}") ? propertiesFirst.replacingOccurrences(of: ",}", with: "}") : propertiesFirst)) == expected, "\(name) properties first")
            }
        }
    }

    @Test("whitespace between tokens is accepted; escaped names resolve")
    func whitespaceAndEscapes() {
        let spaced = EventBuilder("app_open").json
            .replacingOccurrences(of: ",\"", with: " ,\n\t\"")
            .replacingOccurrences(of: "\":", with: "\" : ")
        #expect(verdict(" " + spaced + " \n").isAccepted)
        let escaped = EventBuilder("app_open").json
            .replacingOccurrences(of: "\"event_name\":\"app_open\"", with: "\"event_\\u006eame\":\"app\\u005fopen\"")
        #expect(verdict(escaped).isAccepted)
        #expect(verdict(escaped).eventName == "app_open")
    }
}
