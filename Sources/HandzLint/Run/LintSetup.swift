import Foundation

/// The configuration and catalog a lint run uses, found the same way by `handz-analytics lint`
/// and by the plugins' `handz-lint` tool:
/// - configuration: the given file, else the nearest `.handz-analytics.yml` walking up from
///   `searchFrom` (the target's directory for the build plugin), else the defaults;
/// - catalog: the given directory, else the configuration's `catalog:`, else `fallbackCatalog`.
public struct LintSetup: Sendable {
    public var configuration: LintConfiguration
    /// The configuration file used, if any.
    public var configurationPath: String?
    public var catalogDirectory: String

    public init(configuration: LintConfiguration, configurationPath: String?, catalogDirectory: String) {
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.catalogDirectory = catalogDirectory
    }

    public static func resolve(
        configurationPath: String?, searchFrom: String, catalogDirectory: String?, fallbackCatalog: () throws -> String
    ) throws -> LintSetup {
        let path = configurationPath ?? LintConfiguration.find(from: searchFrom)
        let configuration = try path.map { path throws(LintConfigurationError) in try LintConfiguration.load(path: path) } ?? .standard
        let catalog = try catalogDirectory ?? configuration.catalogDirectory ?? fallbackCatalog()
        return LintSetup(configuration: configuration, configurationPath: path, catalogDirectory: catalog)
    }

    /// What a cached result depends on besides its file: the configuration file, the catalog's
    /// YAML files and `engine` (something that changes whenever the lint's code does).
    public func fingerprint(engine: String) -> UInt64 {
        var hash = ContentHash()
        hash.combine(engine.utf8)
        var files = configurationPath.map { [$0] } ?? []
        for directory in [catalogDirectory, catalogDirectory + "/events"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            files += names.filter { $0.hasSuffix(".yaml") }.sorted().map { directory + "/" + $0 }
        }
        for file in files {
            hash.combine(file.utf8)
            hash.combine(FileManager.default.contents(atPath: file) ?? Data())
        }
        return hash.value
    }
}
