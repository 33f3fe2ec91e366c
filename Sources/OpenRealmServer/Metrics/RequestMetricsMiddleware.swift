import CoreMetrics
import Foundation
import Hummingbird
import Prometheus
import Synchronization

/// The groups HTTP requests are counted and timed by: `health`, `metrics`, `sync` (the
/// sync WebSocket's upgrade request) and `auth` (every other path, unknown ones too).
/// A fixed set, so that a client inventing paths cannot make the server invent series.
enum RouteGroup: String, CaseIterable, Sendable {
    case auth, health, metrics, sync

    init(path: String) {
        if path == "/health" { self = .health } else if path == "/metrics" { self = .metrics }
        else if path.hasSuffix("/realm-sync") { self = .sync } else { self = .auth }
    }

    static var names: [String] { allCases.map(\.rawValue) }
}

/// Counts each HTTP request in `openrealm_http_requests_total{route}` when it arrives,
/// and times it into `openrealm_http_request_duration_seconds{route,status}` when its
/// response is ready (or its handler threw: the status the error answers with) — what
/// Hummingbird's `MetricsMiddleware` records, but on the server's own registry and by
/// route group rather than by path. The duration ends with the response head, not the
/// end of the body: a WebSocket upgrade has no body written through the router.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let group = RouteGroup(path: request.uri.path)
        metrics.increment("openrealm_http_requests_total", labels: "{route=\"\(group.rawValue)\"}")
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.requests.timer(group, status: response.status.code).record(since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requests.timer(group, status: status).record(since: start)
            throw error
        }
    }
}

/// `openrealm_http_request_duration_seconds`, one histogram per route group and status
/// code, made when first used. Status codes are the server's own answers (a few dozen
/// at most), so the series stay bounded.
final class RequestHistograms: Sendable {
    private struct Key: Hashable {
        let group: RouteGroup
        let status: Int
    }

    static let name = "openrealm_http_request_duration_seconds"
    /// From 1 ms (a health check) to 10 s (a login waiting for its password hash under load).
    static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let timers = Mutex<[Key: CoreMetrics.Timer]>([:])

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        self.registry = registry
        self.factory = factory
    }

    func timer(_ group: RouteGroup, status: Int) -> CoreMetrics.Timer {
        timers.withLock { timers in
            let key = Key(group: group, status: status)
            if let known = timers[key] { return known }
            let labels = [("route", group.rawValue), ("status", String(status))]
            let handler = registry.makeDurationHistogram(
                descriptor: .openRealm(Self.name, "Seconds to answer an HTTP request, by route group and status."),
                labels: labels, buckets: Self.buckets)
            let timer = CoreMetrics.Timer(label: Self.name, dimensions: labels, handler: handler, factory: factory)
            timers[key] = timer
            return timer
        }
    }
}
