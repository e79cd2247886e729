import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange's outcome.
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data
}

/// Sends requests with URLSession; each send can be cancelled (opt-out cancels the upload in flight).
final class URLSessionTransport: @unchecked Sendable {
    private let session: URLSession

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Starts `request`; `completion` runs once with the answer or the error.
    func start(_ request: URLRequest, completion: @escaping @Sendable (Result<HTTPAnswer, any Error>) -> Void) -> URLSessionDataTask {
        let task = session.dataTask(with: request) { data, response, error in
            if let error { completion(.failure(error)); return }
            guard let http = response as? HTTPURLResponse else { completion(.failure(URLError(.badServerResponse))); return }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
            completion(.success(HTTPAnswer(status: http.statusCode, headers: headers, body: data ?? Data())))
        }
        task.resume()
        return task
    }
}
