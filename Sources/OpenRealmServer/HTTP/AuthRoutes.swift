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
                return JSONResponses.json(try await BlockingWork.run { try auth.anonymousLogin(appId: appId) })
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/register") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                let email = try JSONResponses.string(body, "email"), password = try JSONResponses.string(body, "password")
                try await BlockingWork.run { try auth.register(appId: appId, email: email, password: password) }
                return JSONResponses.json([String: String](), status: 201)
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                let email = try JSONResponses.string(body, "username", or: "email"), password = try JSONResponses.string(body, "password")
                return JSONResponses.json(try await BlockingWork.run { try auth.login(appId: appId, email: email, password: password) })
            }
        }
        router.post("\(appPrefix)/auth/providers/custom-token/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                let body = try await JSONResponses.body(request)
                let token = try JSONResponses.string(body, "token")
                return JSONResponses.json(try await BlockingWork.run { try auth.customJWTLogin(appId: appId, token: token) })
            }
        }
        router.post("/api/client/v2.0/auth/session") { request, _ in
            try await respondAsync {
                let token = try JSONResponses.bearer(request)
                return JSONResponses.json(["access_token": try await BlockingWork.run { try auth.refresh(refreshToken: token) }], status: 201)
            }
        }
        router.delete("/api/client/v2.0/auth/session") { request, _ in
            try await respondAsync {
                let token = try JSONResponses.bearer(request)
                try await BlockingWork.run { try auth.logout(refreshToken: token) }
                return Response(status: .noContent)
            }
        }
        router.get("/api/client/v2.0/auth/profile") { request, _ in
            try await respondAsync {
                let token = try JSONResponses.bearer(request)
                let (claims, user) = try await BlockingWork.run { try auth.verifyAccess(token) }
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
