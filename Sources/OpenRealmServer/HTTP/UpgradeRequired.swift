import Foundation
import Hummingbird

/// The answer to a request for the sync endpoint that does not ask for a WebSocket:
/// `426 Upgrade Required`, saying why.
///
/// Such a request is nearly always a reverse proxy that does not pass the `Upgrade` and
/// `Connection` fields on (nginx drops both unless told to pass them). Hummingbird's
/// WebSocket route would answer it `200` with an empty body, which a client can only
/// report as "the upgrade failed"; this names the cause and the fix.
struct UpgradeRequired: HTTPResponseError {
    var status: HTTPResponse.Status { .upgradeRequired }

    static let message = "the sync endpoint needs a WebSocket upgrade, but the request came without "
        + "'Upgrade: websocket' and 'Connection: Upgrade'; a reverse proxy in front of openrealm-server must pass "
        + "both on (nginx: proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; "
        + "proxy_set_header Connection \"upgrade\"; see docs/DEPLOY.md)"

    /// Whether `request` asks for a WebSocket (`Upgrade: websocket`, any case).
    static func isWebSocketUpgrade(_ request: Request) -> Bool {
        request.headers[values: .upgrade].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" }
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponses.json(["error": Self.message, "error_code": "UpgradeRequired"], status: 426)
        response.headers[.upgrade] = "websocket"
        response.headers[.connection] = "Upgrade"
        return response
    }
}
