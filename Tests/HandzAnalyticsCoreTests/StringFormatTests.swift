import Foundation
import HandzAnalyticsCore
import HandzSynthetic
import Testing

/// The byte-level format matchers and the regular expressions the JSON Schema export uses are two
/// spellings of one grammar; these tests hold them to each other.
@Suite struct StringFormatTests {
    static let patternFormats = StringFormat.allCases.filter { $0.pattern != nil }

    /// Candidate strings: the examples, their mutations, and random strings over a format-ish alphabet.
    static func candidates(for format: StringFormat, count: Int) -> [String] {
        var random = SeededRandom(seed: UInt64(format.rawValue.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        let alphabet = Array("0123456789abcdefABCDEF-_/.,:+TZ iOSPhonead xzHnsU\n")
        var result = format.examples
        for example in format.examples {
            let characters = Array(example)
            for index in characters.indices {
                var copy = characters
                copy[index] = random.pick(alphabet)
                result.append(String(copy))
                result.append(String(characters[0..<index]))
                result.append(String(characters[0..<index]) + "0" + String(characters[index...]))
            }
            result.append(example + "\n")
        }
        for _ in 0..<count {
            result.append(String((0..<Int(random.int(in: 0...40))).map { _ in random.pick(alphabet) }))
        }
        return result
    }

    @Test("matcher and exported pattern agree", arguments: patternFormats)
    func matcherAgreesWithPattern(format: StringFormat) throws {
        // NSRegularExpression follows ICU, where `$` can match before a final newline like Python;
        // ECMA-262 (the JSON Schema dialect) does not, so compare on newline-free strings here and
        // pin the newline case separately below.
        let regex = try NSRegularExpression(pattern: format.pattern!)
        for candidate in Self.candidates(for: format, count: 3_000) where !candidate.contains("\n") {
            let range = NSRange(candidate.startIndex..., in: candidate)
            let byPattern = regex.firstMatch(in: candidate, range: range) != nil
            #expect(format.matches(candidate) == byPattern, "\(format.rawValue): \(candidate.debugDescription)")
        }
    }

    @Test("no format accepts a trailing newline", arguments: patternFormats)
    func trailingNewline(format: StringFormat) {
        for example in format.examples { #expect(!format.matches(example + "\n")) }
    }

    @Test("examples match their format", arguments: StringFormat.allCases.filter { $0 != .ianaTimeZone })
    func examplesMatch(format: StringFormat) {
        for example in format.examples { #expect(format.matches(example), "\(example)") }
    }

    @Test("timestamps: leap years and day counts follow the Gregorian calendar")
    func calendar() {
        #expect(TimestampFormat.matches2("2024-02-29T00:00:00Z"))
        #expect(!TimestampFormat.matches2("2100-02-29T00:00:00Z"))
        #expect(TimestampFormat.matches2("2000-02-29T00:00:00Z"))
        #expect(!TimestampFormat.matches2("2023-02-29T00:00:00Z"))
        #expect(!TimestampFormat.matches2("2026-06-31T00:00:00Z"))
        for seconds in stride(from: Int64(946_684_800), to: 4_102_444_800, by: 7_919_093) {
            let text = TimestampFormat.format(seconds: seconds, nanoseconds: 123_000_000)
            let parsed = text.utf8CString.withUnsafeBytes { TimestampFormat.parse($0.baseAddress!, text.utf8.count) }
            #expect(parsed?.seconds == seconds, "\(text)")
            #expect(parsed?.nanoseconds == 123_000_000)
        }
    }

    @Test("UUID: the random versions 4 and 7 with the RFC variant only")
    func uuid() {
        // Versions 1 and 6 (MAC address), 3 and 5 (name-derived), 2 and 8: not random (CH33 §1).
        for version in ["1", "2", "3", "5", "6", "8"] {
            #expect(!StringFormat.uuid.matches("0190a5e2-6c1d-\(version)b3e-9f00-4c2a1b3d5e6f"), "version \(version)")
        }
        #expect(StringFormat.uuid.matches("0190a5e2-6c1d-7b3e-9f00-4c2a1b3d5e6f"))
        #expect(StringFormat.uuid.matches("f47ac10b-58cc-4372-a567-0e02b2c3d479"))
        #expect(!StringFormat.uuid.matches("f47ac10b-58cc-9372-a567-0e02b2c3d479"))
        #expect(!StringFormat.uuid.matches("f47ac10b-58cc-4372-7567-0e02b2c3d479"))
        #expect(!StringFormat.uuid.matches("f47ac10b-58cc-4372-a567-0e02b2c3d47\u{01}"))
        var random = SeededRandom(seed: 11)
        for _ in 0..<2_000 { #expect(StringFormat.uuid.matches(SyntheticUUID.v4(&random))) }
    }
}

extension TimestampFormat {
    static func matches2(_ text: String) -> Bool { StringFormat.timestampUTC.matches(text) }
}
