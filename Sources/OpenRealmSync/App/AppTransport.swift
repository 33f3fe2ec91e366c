import Foundation
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The JSON-over-HTTP calls of the auth routes (`docs/SERVER.md`): through URLSession
/// for `http://`, through ``HTTPSClient`` (NIOSSL, the app's trusted roots) for `https://`.
struct AppTransport: Sendable {
    let baseURL: String
    let timeout: TimeInterval
    /// ``AppConfiguration/trustedRootCertificatesFile``: the roots an `https://` server's
    /// certificate must chain to, nil for the system's trust store.
    var trustedRoots: URL?
    /// The trusted roots in words, for error messages.
    var trust = "the system's trust store"

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
        let data: Data, status: Int, retryAfter: String?
        if url.scheme?.lowercased() == "https" {
            (data, status, retryAfter) = try await performOverTLS(request)
        } else {
            (data, status, retryAfter) = try await Self.perform(request)
        }
        let json = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data)
        let body = json as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let code = (body["error_code"] as? String).flatMap(AppError.Code.init(rawValue:))
                ?? (status == 404 ? .providerDisabled : status >= 500 ? .internalServerError : .httpRequestFailed)
            var message = body["error"] as? String ?? "\(method) \(path) answered HTTP \(status)"
            if status == 429, let retry = retryAfter, !message.contains("retry") {
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
    private static func perform(_ request: URLRequest) async throws -> (Data, Int, retryAfter: String?) {
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
                continuation.resume(returning: (data ?? Data(), http.statusCode, http.value(forHTTPHeaderField: "Retry-After")))
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

    /// Runs one request through ``HTTPSClient``, with the same deadline and the same
    /// errors as ``perform(_:)``; a TLS failure names the host and the reason.
    private func performOverTLS(_ request: URLRequest) async throws -> (Data, Int, retryAfter: String?) {
        let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
        let context: NIOSSLContext
        do { context = try TLSTrust.context(trustedRoots: trustedRoots) } catch {
            throw AppError(.httpRequestFailed, "\(what) failed: \(error)")
        }
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        do {
            let answer = try await HTTPSClient.send(method: request.httpMethod ?? "GET", url: request.url!, headers: headers,
                                                    body: request.httpBody, timeout: request.timeoutInterval,
                                                    tls: context, trust: trust)
            return (answer.body, answer.status, answer.headers["retry-after"])
        } catch {
            throw AppError(.httpRequestFailed, "\(what) failed: \(error)")
        }
    }
}
