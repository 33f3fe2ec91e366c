import Hummingbird

/// `GET /metrics`: ``ServerMetrics`` in the Prometheus text format, and the requests'
/// own metrics (``RequestMetricsMiddleware``).
enum MetricsRoute {
    /// Adds the request metrics' middleware to `router` (counting the requests of the
    /// routes added after it), then `GET /metrics` unless `serving` is false (the metrics
    /// have an address of their own: ``ServerConfiguration/metricsPort``).
    static func add<Context: RequestContext>(to router: some RouterMethods<Context>, metrics: ServerMetrics, serving: Bool = true) {
        _ = router.add(middleware: RequestMetricsMiddleware<Context>(metrics: metrics))
        guard serving else { return }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }
}
