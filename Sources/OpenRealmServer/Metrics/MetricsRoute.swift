import Hummingbird

/// `GET /metrics`: ``ServerMetrics`` in the Prometheus text format, and the requests'
/// own metrics (``RequestMetricsMiddleware``).
enum MetricsRoute {
    /// Adds the request metrics' middleware to `router` (counting the requests of the
    /// routes added after it), then `GET /metrics`.
    static func add<Context: RequestContext>(to router: some RouterMethods<Context>, metrics: ServerMetrics) {
        _ = router.add(middleware: RequestMetricsMiddleware<Context>(metrics: metrics))
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }
}
