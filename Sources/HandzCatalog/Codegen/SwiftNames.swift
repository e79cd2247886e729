/// Swift identifiers for catalog names, for the generated typed events.
enum SwiftNames {
    static let reserved: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch", "false", "is", "nil",
        "super", "self", "Self", "throw", "throws", "true", "try", "Type", "Protocol", "some", "any",
    ]

    /// Words of a name: split at `_`, `-`, other punctuation and letter/digit edges kept together.
    static func words(_ name: String) -> [String] {
        name.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// `flow_saved_success` → `FlowSavedSuccess`.
    static func type(_ name: String) -> String {
        let joined = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    /// `total_nodes_after` → `totalNodesAfter`; `ERR-031` → `err031`; `import` → `` `import` ``.
    static func member(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "_" }
        var result = isAllUppercase(first) ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        for part in parts.dropFirst() { result += part.prefix(1).uppercased() + part.dropFirst() }
        if result.first?.isNumber == true { result = "_" + result }
        return reserved.contains(result) ? "`\(result)`" : result
    }

    static func isAllUppercase(_ word: String) -> Bool {
        word.allSatisfy { !$0.isLetter || $0.isUppercase }
    }

    /// A Swift string literal.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
