import Hummingbird
import HummingbirdWebSocket

/// `GET /metrics`: ``ServerMetrics`` in the Prometheus text format, and the count of
/// HTTP requests by route group (`auth`, `health`, `metrics`).
enum MetricsRoute {
    static func add(to router: Router<ServerRequestContext>, metrics: ServerMetrics) {
        router.add(middleware: CountingMiddleware(metrics: metrics))
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }

    /// Counts each HTTP request (the sync WebSocket's upgrade request included, as `sync`).
    struct CountingMiddleware: RouterMiddleware {
        typealias Context = ServerRequestContext
        let metrics: ServerMetrics

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let path = request.uri.path
            let group: String
            if path == "/health" { group = "health" } else if path == "/metrics" { group = "metrics" }
            else if path.hasSuffix("/realm-sync") { group = "sync" } else { group = "auth" }
            metrics.increment("openrealm_http_requests_total", labels: "{route=\"\(group)\"}")
            return try await next(request, context)
        }
    }
}
