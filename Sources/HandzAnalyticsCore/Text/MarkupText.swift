/// Escaping for XML 1.0 and HTML text and attribute values, the one implementation the QA JUnit
/// report and the dashboards' HTML/SVG use: the five markup characters as entities, characters
/// XML cannot carry (C0 controls other than tab and newline, U+FFFE, U+FFFF) as U+FFFD, and a
/// carriage return as `&#13;` so attribute values keep it.
public enum MarkupText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
