import HandzAnalyticsCore
import Yams

/// Reads Yams nodes into plain values, recording a `CatalogProblem` (with file and line) for
/// every shape it did not expect instead of stopping at the first.
struct YAMLReader {
    let file: String
    var problems: [CatalogProblem] = []

    init(file: String) { self.file = file }

    func location(_ node: Node?) -> CatalogLocation {
        CatalogLocation(file: file, line: node?.mark?.line ?? 1)
    }

    mutating func problem(_ node: Node?, _ message: String) {
        problems.append(CatalogProblem(location(node), message))
    }

    /// The pairs of a mapping, in order, reporting duplicate keys and keys outside `allowed`.
    mutating func pairs(_ node: Node?, context: String, allowed: Set<String>? = nil) -> [(key: String, keyNode: Node, value: Node)] {
        guard let node else { return [] }
        guard let mapping = node.mapping else {
            problem(node, "\(context) must be a mapping")
            return []
        }
        var seen: Set<String> = []
        var result: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                problem(keyNode, "\(context): keys must be plain strings")
                continue
            }
            if !seen.insert(key).inserted {
                problem(keyNode, "\(context): duplicate key '\(key)'")
                continue
            }
            if let allowed, !allowed.contains(key) {
                problem(keyNode, "\(context): unknown key '\(key)' (expected \(allowed.sorted().joined(separator: ", ")))")
                continue
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    mutating func string(_ node: Node?, _ context: String) -> String? {
        guard let node else { return nil }
        guard let scalar = node.scalar else {
            problem(node, "\(context) must be a string")
            return nil
        }
        return scalar.string
    }

    mutating func integer(_ node: Node?, _ context: String) -> Int64? {
        guard let text = string(node, context) else { return nil }
        guard let value = Int64(text.replacingOccurrences(of: "_", with: "")) else {
            problem(node, "\(context) must be an integer")
            return nil
        }
        return value
    }

    mutating func boolean(_ node: Node?, _ context: String) -> Bool? {
        guard let text = string(node, context) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            problem(node, "\(context) must be true or false")
            return nil
        }
    }

    /// A list of strings; also reports duplicates.
    mutating func strings(_ node: Node?, _ context: String) -> [String] {
        guard let node else { return [] }
        guard let sequence = node.sequence else {
            problem(node, "\(context) must be a list")
            return []
        }
        var seen: Set<String> = []
        var result: [String] = []
        for item in sequence {
            guard let value = string(item, context) else { continue }
            if !seen.insert(value).inserted {
                problem(item, "\(context): duplicate entry '\(value)'")
                continue
            }
            result.append(value)
        }
        return result
    }

    /// `30s`, `15m`, `24h`, `7d` → seconds (exact durations, never calendar arithmetic).
    mutating func duration(_ node: Node?, _ context: String) -> Int64? {
        guard let text = string(node, context) else { return nil }
        guard let seconds = DurationText.seconds(text) else {
            problem(node, "\(context) must be a duration like 24h or 7d")
            return nil
        }
        return seconds
    }
}

