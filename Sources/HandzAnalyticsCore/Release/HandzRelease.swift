/// The package's version: what `handz-analytics --version` prints.
///
/// One place for the fact. Between releases it is the next minor version with `-dev` (Semantic
/// Versioning's pre-release form, so it orders before the release it leads to); tagging a
/// release drops the suffix in the same commit as the CHANGELOG heading (CHANGELOG.md,
/// "Versioning policy"). `ReleaseVersionTests` holds the two together.
public enum HandzRelease {
    public static let version = "1.2.0"
}
