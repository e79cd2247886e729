import Foundation
import HandzAnalyticsCore
import HandzSynthetic
import HandzTestSupport
import Testing

/// Hostile input is rejected cleanly: no crash, no hang, one of the documented codes — and the
/// code the input calls for, decided by an independent RFC 8259 recogniser (``ReferenceJSON``).
@Suite struct RobustnessTests {
    /// The codes about an object's content: what an object may be refused with. Neither of the
    /// syntax codes, nor the two the endpoint alone gives a whole batch (TheValidator's table).
    static let contentCodes = Set(ValidationErrorCode.allCases).subtracting([
        .malformedJSON, .notAnObject, .unknownCatalogVersion, .catalogVersionRetired,
    ])

    /// Checks `verdict` against what `bytes` are: not JSON → `malformed_json` alone (or
    /// `too_large` alone, nested beyond 64 levels); JSON but not an object → `not_an_object` alone;
    /// an object → accepted, or refused with content codes only. Every issue has a message and a
    /// JSON-pointer path. Returns the kind, for the caller's tally.
    @discardableResult
    static func expectDocumentedCodes(_ verdict: Verdict, for bytes: [UInt8], _ comment: @autoclosure () -> String,
                                      sourceLocation: SourceLocation = #_sourceLocation) -> ReferenceJSON.Kind {
        let (kind, depth) = ReferenceJSON.classify(bytes)
        let codes = verdict.codes
        switch kind {
        case .notJSON:
            let expected: Set<[ValidationErrorCode]> = depth > 64 ? [[.malformedJSON], [.tooLarge]] : [[.malformedJSON]]
            #expect(expected.contains(codes), "not JSON, refused with \(codes): \(comment())", sourceLocation: sourceLocation)
        case .notAnObject:
            let expected: Set<[ValidationErrorCode]> = depth > 64 ? [[.notAnObject], [.tooLarge]] : [[.notAnObject]]
            #expect(expected.contains(codes), "JSON but not an object, verdict \(codes): \(comment())", sourceLocation: sourceLocation)
        case .object:
            #expect(Set(codes).isSubset(of: contentCodes), "an object refused with \(codes): \(comment())", sourceLocation: sourceLocation)
        }
        #expect(verdict.isAccepted == verdict.issues.isEmpty && verdict.isAccepted == codes.isEmpty, sourceLocation: sourceLocation)
        #expect(verdict.issues.allSatisfy { !$0.message.isEmpty && ($0.path.isEmpty || $0.path.hasPrefix("/")) },
                "an issue without a message or a JSON-pointer path: \(comment())", sourceLocation: sourceLocation)
        return kind
    }

    @Test("random bytes are rejected, never crash")
    func randomBytes() {
        var random = SeededRandom(seed: 42)
        var validator = makeValidator()
        for _ in 0..<20_000 {
            let length = Int(random.int(in: 0...300))
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let result = validator.validate(bytes)
            #expect(!result.isAccepted)
            Self.expectDocumentedCodes(result, for: bytes, "\(length) random bytes")
        }
    }

    /// JSON's own alphabet, and JSON-shaped text with a byte or two changed: inputs that reach
    /// every branch of the scanner, of all three kinds.
    static let alphabet = Array("{}[]\":,0123456789.-+eE truefalsnul\\u\"abc_".utf8)

    /// A random JSON value, at most `depth` containers deep; keys from the envelope and a few others.
    static func randomJSON(_ random: inout SeededRandom, depth: Int) -> String {
        let keys = ["event_name", "event_id", "properties", "install_id", "screen_name", "a", "", "e\\u0078", "app_open"]
        switch random.int(in: depth > 0 ? 0...7 : 0...4) {
        case 0: return random.pick(["true", "false", "null"])
        case 1: return random.pick(["0", "-1", "12.5e3", "3.0", "1E-2", "18446744073709551616"])
        case 2, 3: return "\"" + random.pick(keys + ["x\\n", "\\ud83d\\ude00", "home/demo", "a b"]) + "\""
        case 4: return "\"" + random.pick(keys) + "\""
        case 5: return "[" + (0..<Int(random.int(in: 0...3))).map { _ in randomJSON(&random, depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            return "{" + (0..<Int(random.int(in: 0...4))).map { _ in
                "\"\(random.pick(keys))\":" + randomJSON(&random, depth: depth - 1)
            }.joined(separator: ",") + "}"
        }
    }

    @Test("bytes from JSON's alphabet, and JSON with a byte or two changed, get the documented code for what they are")
    func jsonishBytes() {
        var random = SeededRandom(seed: 7)
        var validator = makeValidator()
        var kinds: [ReferenceJSON.Kind: Int] = [:]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.int(in: 1...80))).map { _ in random.pick(Self.alphabet) }
            } else {
                bytes = Array(Self.randomJSON(&random, depth: 3).utf8)
                for _ in 0..<Int(random.int(in: 0...2)) where !bytes.isEmpty {
                    let at = Int(random.int(in: 0...Int64(bytes.count - 1)))
                    switch random.int(in: 0...2) {
                    case 0: bytes[at] = random.pick(Self.alphabet)
                    case 1: bytes.insert(random.pick(Self.alphabet), at: at)
                    default: bytes.remove(at: at)
                    }
                }
            }
            let kind = Self.expectDocumentedCodes(validator.validate(bytes), for: bytes, "round \(round)")
            kinds[kind, default: 0] += 1
        }
        // Each kind of input came up often enough to mean something.
        #expect(kinds[.notJSON, default: 0] > 2_000 && kinds[.notAnObject, default: 0] > 1_000 && kinds[.object, default: 0] > 1_000, "\(kinds)")
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

    @Test("every single-byte corruption of a valid event gets the documented code for what it became")
    func corruptions() {
        let bytes = Array(EventBuilder("screen_viewed", includeOptional: true).json.utf8)
        var validator = makeValidator()
        #expect(validator.validate(bytes).isAccepted)
        var kinds: [ReferenceJSON.Kind: Int] = [:]
        for index in bytes.indices {
            for replacement: UInt8 in [0x00, 0x22, 0x5C, 0x7B, 0x7D, 0xFF] {
                var copy = bytes
                copy[index] = replacement
                let verdict = validator.validate(copy)
                let kind = Self.expectDocumentedCodes(verdict, for: copy, "byte \(index) set to \(replacement)")
                kinds[kind, default: 0] += 1
                // A NUL or 0xFF is never JSON, wherever it is (raw control character, invalid UTF-8).
                if replacement == 0x00 || replacement == 0xFF { #expect(verdict.codes == [.malformedJSON], "byte \(index) set to \(replacement)") }
                // The same byte again is the same, valid event.
                if copy == bytes { #expect(verdict.isAccepted, "byte \(index) unchanged") }
            }
        }
        // Braces inside a string keep it JSON: both kinds are exercised.
        #expect(kinds[.notJSON, default: 0] > 0 && kinds[.object, default: 0] > 0, "\(kinds)")
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
