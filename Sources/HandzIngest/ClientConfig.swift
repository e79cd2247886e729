import Foundation
import HandzAnalyticsCore
import HandzSigning

/// The settings the server hands its clients (`GET /v1/client-config`, issue 17): how often to
/// flush, how many events per batch, and the catalog versions whose apps must stop sending (a
/// kill switch for a broken release). Read from `serve --client-config FILE` (JSON, the same
/// keys); without it, these defaults. Clients bound every value themselves (at most one upload a
/// second, never more per batch or in the queue than their own caps), so a bad file cannot make
/// the fleet send more.
public struct ClientConfig: Sendable, Equatable {
    public var flushIntervalSeconds: Double = 30
    public var maxBatchEvents: Int = 100
    public var disabledCatalogVersions: [String] = []

    public init() {}

    /// Parses the JSON object; unknown keys are refused so a typo is not silently ignored.
    public init(json data: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw ClientConfigError.notAnObject }
        for (key, value) in object {
            switch (key, value) {
            case ("flush_interval_seconds", let number as NSNumber) where number.doubleValue.isFinite && number.doubleValue > 0:
                flushIntervalSeconds = number.doubleValue
            case ("max_batch_events", let number as NSNumber) where number.intValue >= 1:
                maxBatchEvents = number.intValue
            case ("disabled_catalog_versions", let list as [String]):
                disabledCatalogVersions = list
            default:
                throw ClientConfigError.badKey(key)
            }
        }
    }

    /// The JSON the endpoint serves (keys sorted, so the ETag is stable).
    public var json: String {
        let versions = disabledCatalogVersions.map { JSONString.quoted($0) }.joined(separator: ",")
        return "{\"disabled_catalog_versions\":[\(versions)],\"flush_interval_seconds\":\(flushIntervalSeconds),\"max_batch_events\":\(maxBatchEvents)}"
    }

    /// A strong ETag: the SHA-256 of the served JSON, in hex.
    public var etag: String {
        var hash = SHA256Stream()
        hash.update(Array(json.utf8))
        return "\"" + hash.hex() + "\""
    }
}

public enum ClientConfigError: Error, CustomStringConvertible {
    case notAnObject
    case badKey(String)

    public var description: String {
        switch self {
        case .notAnObject: "the client config must be a JSON object"
        case .badKey(let key): "client config: '\(key)' is unknown or has a value out of range (flush_interval_seconds > 0, max_batch_events ≥ 1, disabled_catalog_versions: [strings])"
        }
    }
}

extension IngestService {
    /// `GET /v1/client-config` (ingest scope, HZ2 over the GET with an empty body): the settings
    /// with an `ETag`; `If-None-Match` with the current tag answers 304 with no body.
    public func clientConfig(_ config: ClientConfig, headers: [String: String], body: [UInt8], target: RequestSignature.Target) -> IngestResponse {
        do {
            _ = try authenticate(headers, target: target, body: body, scope: .ingest)
            // The catalog's retired versions are disabled too (the server side of the kill
            // switch, docs/catalog-releases.md): an app on a retired version stops sending
            // instead of having every batch refused.
            var config = config
            for version in catalog.retired where !config.disabledCatalogVersions.contains(version) {
                config.disabledCatalogVersions.append(version)
            }
            config.disabledCatalogVersions.sort()
            let etag = config.etag
            if headers["if-none-match"] == etag { return finish(IngestResponse(status: 304, headers: [("ETag", etag)], body: [])) }
            var response = IngestResponse.json(200, config.json)
            response.headers.append(("ETag", etag))
            response.headers.append(("Cache-Control", "private, max-age=3600"))
            return finish(response)
        } catch let error as RequestError {
            return finish(.error(error))
        } catch {
            return finish(.error(.storeUnavailable(retryAfterSeconds: 5)))
        }
    }
}
