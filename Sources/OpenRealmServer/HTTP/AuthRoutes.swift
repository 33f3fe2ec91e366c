import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The auth routes, laid out as the Realm SDK's app services laid them out
/// (docs/SERVER.md lists them with their bodies and errors).
enum AuthRoutes {
    static let appPrefix = "/api/client/v2.0/app/{appId}"

    /// `location`: what `/location` answers (the public URL, else the listening address
    /// and `port`, `https://` and `wss://` when the port serves TLS).
    static func add<Context: OpenRealmRequestContext>(to router: some RouterMethods<Context>, auth: AuthService,
                                                      location: PublicLocation, port: @escaping @Sendable () -> Int) {
        router.get("/health") { _, _ in
            JSONResponses.json(["status": "ok"])
        }
        router.get("\(appPrefix)/location") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId")
                // Opening an app is store work (a database's round trip): not on this thread.
                try await BlockingWork.run { _ = try auth.apps.app(appId) }
                let urls = location.urls(port: port(), requestHost: request.head.authority)
                return JSONResponses.json(["deployment_model": "LOCAL", "location": "local",
                                           "hostname": urls.http, "ws_hostname": urls.ws])
            }
        }
        router.post("\(appPrefix)/auth/providers/anon-user/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                return JSONResponses.json(try await BlockingWork.run { try auth.anonymousLogin(appId: appId, remoteAddress: address) })
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/register") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                let body = try await JSONResponses.body(request)
                let email = try JSONResponses.string(body, "email"), password = try JSONResponses.string(body, "password")
                try await BlockingWork.run { try auth.register(appId: appId, email: email, password: password, remoteAddress: address) }
                return JSONResponses.json([String: String](), status: 201)
            }
        }
        router.post("\(appPrefix)/auth/providers/local-userpass/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                let body = try await JSONResponses.body(request)
                let email = try JSONResponses.string(body, "username", or: "email"), password = try JSONResponses.string(body, "password")
                return JSONResponses.json(try await BlockingWork.run {
                    try auth.login(appId: appId, email: email, password: password, remoteAddress: address)
                })
            }
        }
        addEmailRoutes(to: router, auth: auth)
        addCredentialLogin(to: router, provider: "custom-token", field: "token") {
            try auth.customJWTLogin(appId: $0, token: $1, remoteAddress: $2)
        }
        addCredentialLogin(to: router, provider: "api-key", field: "key") {
            try auth.apiKeyLogin(appId: $0, key: $1, remoteAddress: $2)
        }
        addAPIKeyRoutes(to: router, auth: auth)
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

    /// Confirmation and password reset of the email/password provider (docs/SERVER.md):
    /// the `send` routes answer 200 whether or not the address is registered.
    private static func addEmailRoutes<Context: OpenRealmRequestContext>(to router: some RouterMethods<Context>, auth: AuthService) {
        let base = "\(appPrefix)/auth/providers/local-userpass"
        router.post(RouterPath(base + "/confirm")) { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                let body = try await JSONResponses.body(request)
                let token = try JSONResponses.string(body, "token"), tokenId = try JSONResponses.string(body, "tokenId")
                try await BlockingWork.run { try auth.confirm(appId: appId, token: token, tokenId: tokenId, remoteAddress: address) }
                return JSONResponses.json([String: String]())
            }
        }
        router.post(RouterPath(base + "/reset")) { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                let body = try await JSONResponses.body(request)
                let token = try JSONResponses.string(body, "token"), tokenId = try JSONResponses.string(body, "tokenId")
                let password = try JSONResponses.string(body, "password")
                try await BlockingWork.run {
                    try auth.resetPassword(appId: appId, token: token, tokenId: tokenId, password: password, remoteAddress: address)
                }
                return JSONResponses.json([String: String]())
            }
        }
        for (path, send) in [("/confirm/send", AuthService.resendConfirmation), ("/reset/send", AuthService.sendPasswordReset)] {
            router.post(RouterPath(base + path)) { request, context in
                try await respondAsync {
                    let appId = try context.parameters.require("appId"), address = context.remoteIP
                    let email = try JSONResponses.string(try await JSONResponses.body(request), "email")
                    try await BlockingWork.run { try send(auth)(appId, email, address) }
                    return JSONResponses.json([String: String]())
                }
            }
        }
    }

    /// The API key routes, authorised by the user's access token (docs/SERVER.md).
    private static func addAPIKeyRoutes<Context: OpenRealmRequestContext>(to router: some RouterMethods<Context>, auth: AuthService) {
        let base = "/api/client/v2.0/auth/api_keys"
        router.post(RouterPath(base)) { request, _ in
            try await respondAsync {
                let token = try JSONResponses.bearer(request)
                let name = try JSONResponses.string(try await JSONResponses.body(request), "name")
                return JSONResponses.json(try await BlockingWork.run { try auth.createAPIKey(accessToken: token, name: name) }, status: 201)
            }
        }
        router.get(RouterPath(base)) { request, _ in
            try await respondAsync {
                let token = try JSONResponses.bearer(request)
                return JSONResponses.json(try await BlockingWork.run { try auth.apiKeys(accessToken: token) })
            }
        }
        router.get(RouterPath(base + "/{keyId}")) { request, context in
            try await respondAsync {
                let token = try JSONResponses.bearer(request), id = try context.parameters.require("keyId")
                return JSONResponses.json(try await BlockingWork.run { try auth.apiKey(accessToken: token, id: id) })
            }
        }
        router.delete(RouterPath(base + "/{keyId}")) { request, context in
            try await respondAsync {
                let token = try JSONResponses.bearer(request), id = try context.parameters.require("keyId")
                try await BlockingWork.run { try auth.deleteAPIKey(accessToken: token, id: id) }
                return Response(status: .noContent)
            }
        }
        for (verb, disabled) in [("enable", false), ("disable", true)] {
            router.put(RouterPath(base + "/{keyId}/" + verb)) { request, context in
                try await respondAsync {
                    let token = try JSONResponses.bearer(request), id = try context.parameters.require("keyId")
                    try await BlockingWork.run { try auth.setAPIKey(accessToken: token, id: id, disabled: disabled) }
                    return Response(status: .noContent)
                }
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
    /// The login route of `provider` whose JSON body carries the one credential in
    /// `field`: `login(appId, credential, client address)` runs off the event loop.
    private static func addCredentialLogin<Context: OpenRealmRequestContext>(
        to router: some RouterMethods<Context>, provider: String, field: String,
        _ login: @escaping @Sendable (String, String, String?) throws -> LoginResult
    ) {
        router.post("\(appPrefix)/auth/providers/\(provider)/login") { request, context in
            try await respondAsync {
                let appId = try context.parameters.require("appId"), address = context.remoteIP
                let body = try await JSONResponses.body(request)
                let credential = try JSONResponses.string(body, field)
                return JSONResponses.json(try await BlockingWork.run { try login(appId, credential, address) })
            }
        }
    }

    private static func respondAsync(_ body: () async throws -> Response) async throws -> Response {
        do { return try await body() } catch let error as AuthError { return JSONResponses.error(error) }
    }
}
