import HandzAnalyticsCore
import HandzTestSupport

/// Validates `json` with a fresh validator over the repository catalog.
func verdict(_ json: String) -> Verdict {
    var validator = makeValidator()
    return validator.validate(json)
}

func verdict(_ builder: EventBuilder) -> Verdict { verdict(builder.json) }

/// The (code, path) pairs of a verdict, sorted, for exact comparisons.
func findings(_ verdict: Verdict) -> [String] {
    verdict.issues.map { "\($0.code.rawValue) \($0.path)" }.sorted()
}
