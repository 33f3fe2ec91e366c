import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The auth routes, laid out as the Realm SDK's app services laid them out
/// (docs/SERVER.md lists them with their bodies and errors).
enum AuthRoutes {
    static let appPrefix = "/api/client/v2.0/app/{appId}"

    static func add(to router: Router<BasicWebSocketRequestContext>, auth: AuthService, host: String, port: @escaping @Sendable () -> Int) {
        router.get("/health") { _, _ in
            JSONResponses.json(["status": "ok"])
        }
        router.get("\(appPrefix)/location") { _, context in
            try respond {
                let appId = try context.parameters.require("appId")
                _ = try auth.apps.app(appId)
                let p = port()
                return JSONResponses.json(["deployment_model": "LOCAL", "location": "local",
                                           "hostname": "http://\(host):\(p)", "ws_hostname": "ws://\(host):\(p)"])
            }
        }
        router.post("\(appPrefix)/auth/providers/anon-user/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                return JSONResponses.json(try auth.anonymousLogin(appId: appId))
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/register") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                try auth.register(appId: appId, email: try JSONResponses.string(body, "email"),
                                  password: try JSONResponses.string(body, "password"))
                return JSONResponses.json([String: String](), status: 201)
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                return JSONResponses.json(try auth.login(appId: appId, email: try JSONResponses.string(body, "username", or: "email"),
                                                         password: try JSONResponses.string(body, "password")))
            }
        }
        router.post("\(appPrefix)/auth/providers/custom-token/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                return JSONResponses.json(try auth.customJWTLogin(appId: appId, token: try JSONResponses.string(body, "token")))
            }
        }
        router.post("/api/client/v2.0/auth/session") { request, _ in
            try respond {
                JSONResponses.json(["access_token": try auth.refresh(refreshToken: try JSONResponses.bearer(request))], status: 201)
            }
        }
        router.delete("/api/client/v2.0/auth/session") { request, _ in
            try respond {
                try auth.logout(refreshToken: try JSONResponses.bearer(request))
                return Response(status: .noContent)
            }
        }
        router.get("/api/client/v2.0/auth/profile") { request, _ in
            try respond {
                let (claims, user) = try auth.verifyAccess(try JSONResponses.bearer(request))
                var data: [String: String] = [:]
                if let email = user.email { data["email"] = email }
                return JSONResponses.json(Profile(user_id: user.id, app_id: claims.aud, identities: [Identity(provider_type: user.provider)], data: data))
            }
        }
    }

    private struct Identity: Encodable { var provider_type: String }
    private struct Profile: Encodable {
        var user_id: String
        var app_id: String
        var identities: [Identity]
        var data: [String: String]
    }

    /// Runs a route body, turning an ``AuthError`` into its JSON response.
    private static func respond(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let error as AuthError { return JSONResponses.error(error) }
    }

    private static func respondAsync(_ body: () async throws -> Response) async throws -> Response {
        do { return try await body() } catch let error as AuthError { return JSONResponses.error(error) }
    }
}
