import HandzAnalyticsCore

/// How catalog names appear in the generated typed API (issue 4): one struct per event named in
/// UpperCamelCase (`flow_saved_success` → `FlowSavedSuccess`), one lowerCamelCase label per
/// property (`launch_source` → `launchSource`).
public enum EventNaming {
    /// `flow_saved_success` → `FlowSavedSuccess`.
    public static func typeName(ofEvent name: String) -> String {
        name.split(separator: "_").map(capitalized).joined()
    }

    /// `launch_source` → `launchSource`.
    public static func label(ofProperty name: String) -> String {
        let parts = name.split(separator: "_")
        guard let first = parts.first else { return name }
        return String(first) + parts.dropFirst().map(capitalized).joined()
    }

    /// `FlowSavedSucess` → `flow_saved_sucess`, `userEmail` → `user_email`: the snake_case name an
    /// identifier stands for, split the way the PII key lint splits keys.
    public static func snakeCase(_ identifier: String) -> String {
        PIIKeyLint.tokens(of: identifier).joined(separator: "_")
    }

    private static func capitalized(_ part: Substring) -> String {
        part.prefix(1).uppercased() + part.dropFirst()
    }
}
