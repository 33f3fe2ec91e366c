import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The JSON-over-HTTP calls of the auth routes (`docs/SERVER.md`), through URLSession.
struct AppTransport: Sendable {
    let baseURL: String
    let timeout: TimeInterval

    /// A decoded JSON answer.
    struct Reply: @unchecked Sendable {
        var status: Int
        var body: [String: Any]
        /// The answer's JSON whatever its shape (an array for lists), or nil when empty.
        var json: Any?
    }

    /// Sends one request and returns the answer when its status is 2xx.
    ///
    /// - Throws: ``AppError`` with the server's `error_code` and message for other
    ///   statuses, `.httpRequestFailed` when the server cannot be reached.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil, bearer: String? = nil) async throws -> Reply {
        guard let url = URL(string: baseURL + path) else {
            throw AppError(.httpRequestFailed, "'\(baseURL + path)' is not a valid URL: check the app's baseURL.")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await Self.perform(request)
        let status = response.statusCode
        let json = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data)
        let body = json as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let code = (body["error_code"] as? String).flatMap(AppError.Code.init(rawValue:))
                ?? (status == 404 ? .providerDisabled : status >= 500 ? .internalServerError : .httpRequestFailed)
            var message = body["error"] as? String ?? "\(method) \(path) answered HTTP \(status)"
            if status == 429, let retry = response.value(forHTTPHeaderField: "Retry-After"), !message.contains("retry") {
                message += " (retry after \(retry) s)"
            }
            throw AppError(code, message, httpStatusCode: status)
        }
        return Reply(status: status, body: body, json: json)
    }


    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// Runs one request with a hard deadline: URLSession's timeout counts idle time
    /// only, so a request that trickles or a task that never reports would otherwise keep
    /// its caller waiting for good. Past `timeout` the task is cancelled and the call
    /// fails with `.httpRequestFailed`, whatever the task reports later.
    private static func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let timeout = request.timeoutInterval
        let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
        return try await withCheckedThrowingContinuation { continuation in
            let once = OnceFlag()
            let task = session.dataTask(with: request) { data, response, error in
                guard once.claim() else { return }
                if let error {
                    continuation.resume(throwing: AppError(.httpRequestFailed, "\(what) failed: \(error.localizedDescription)"))
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(throwing: AppError(.httpRequestFailed, "\(request.url?.absoluteString ?? "") gave no HTTP response"))
                    return
                }
                continuation.resume(returning: (data ?? Data(), http))
            }
            let taskBox = UncheckedBox(task)
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                guard once.claim() else { return }
                taskBox.value.cancel()
                continuation.resume(throwing: AppError(.httpRequestFailed, "\(what) got no complete answer within \(timeout) seconds (AppConfiguration.defaultRequestTimeoutMS)."))
            }
            task.resume()
        }
    }
}
