import HandzAnalyticsCore
import Testing

/// The member reader the QA engine uses is the validator's scanner underneath: it reads the same
/// JSON language (RFC 8259, strict UTF-8) and hands over exactly the members asked for.
@Suite struct JSONObjectReaderTests {
    /// Every member of a flat object, as (key, value) with strings decoded; nil when malformed.
    static func members(_ text: String) -> [(String, String)]? {
        members(Array(text.utf8))
    }

    static func members(_ bytes: [UInt8]) -> [(String, String)]? {
        bytes.withUnsafeBytes { raw -> [(String, String)]? in
            var reader = JSONObjectReader(raw)
            var out: [(String, String)] = []
            do {
                var first = try reader.beginObject()
                while let key = try reader.nextKey(&first) {
                    let name = String(decoding: key, as: UTF8.self)
                    switch try reader.value() {
                    case .string(let text): out.append((name, "s:" + String(decoding: text, as: UTF8.self)))
                    case .integer(let number): out.append((name, "i:\(number)"))
                    case .bool(let flag): out.append((name, "b:\(flag)"))
                    case .null: out.append((name, "null"))
                    case .other: out.append((name, "other"))
                    }
                }
                try reader.finish()
                return out
            } catch {
                return nil
            }
        }
    }

    @Test("scalars, escapes and skipped containers are read member by member")
    func readsMembers() throws {
        let read = try #require(Self.members(#" { "a" : "x\"y\u00e9\ud83d\ude00", "n": -42, "f": 1.5, "big": 99999999999999999999, "t": true, "z": null, "o": {"k": [1, {"d": "e"}]}, "e": "" } "#))
        #expect(read.map(\.0) == ["a", "n", "f", "big", "t", "z", "o", "e"])
        #expect(read.map(\.1) == ["s:x\"yé😀", "i:-42", "other", "other", "b:true", "null", "other", "s:"])
    }

    @Test("what RFC 8259 forbids is refused", arguments: [
        "", "[]", "{", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":1} x",
        "{a:1}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"tab\there\"}", "{\"a\":[1,]}", "{\"a\":1}{}",
    ])
    func refusesMalformed(_ text: String) {
        #expect(Self.members(text) == nil)
    }

    @Test("invalid UTF-8 is refused, as the validator refuses it")
    func refusesInvalidUTF8() {
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(Self.members(Array("{\"a\":\"".utf8) + bad + Array("\"}".utf8)) == nil)
        }
    }

    @Test("nesting past the bound is refused without recursion")
    func boundsNesting() {
        let deep = "{\"a\":" + String(repeating: "[", count: JSONObjectReader.maxDepth + 1) + String(repeating: "]", count: JSONObjectReader.maxDepth + 1) + "}"
        let fits = "{\"a\":" + String(repeating: "[", count: JSONObjectReader.maxDepth) + String(repeating: "]", count: JSONObjectReader.maxDepth) + "}"
        #expect(Self.members(deep) == nil)
        #expect(Self.members(fits)?.first?.1 == "other")
    }

    /// Reads only `want`, skipping every other member; nil when malformed.
    static func only(_ want: String, in text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { raw -> String? in
            var reader = JSONObjectReader(raw)
            var found = "absent"
            do {
                var first = try reader.beginObject()
                while let key = try reader.nextKey(&first) {
                    guard String(decoding: key, as: UTF8.self) == want else { try reader.skipValue(); continue }
                    if case .string(let text) = try reader.value() { found = String(decoding: text, as: UTF8.self) }
                }
                try reader.finish()
                return found
            } catch {
                return nil
            }
        }
    }

    @Test("skipped members are checked like read ones, and skipping leaves the wanted member intact")
    func skipsChecked() {
        #expect(Self.only("b", in: #"{"a":"x\n\u00e9","b":"k\"ept","c":[{"d":"\t"}]}"#) == "k\"ept")
        #expect(Self.only("b", in: #"{"a":"bad \x escape","b":"kept"}"#) == nil)
        #expect(Self.only("b", in: #"{"a":"\ud800","b":"kept"}"#) == nil)
        #expect(Self.only("b", in: #"{"a":01,"b":"kept"}"#) == nil)
    }
}
