import Foundation
import Hummingbird

/// JSON bodies in and out of the auth routes.
enum JSONResponses {
    /// A JSON response of `status` with `object` encoded.
    static func json<T: Encodable>(_ object: T, status: Int = 200) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
        return Response(status: HTTPResponse.Status(code: status),
                        headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The response for an auth failure: `{"error": message, "error_code": code}`.
    static func error(_ error: AuthError) -> Response {
        var response = json(["error": error.message, "error_code": error.code], status: error.status)
        if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// The request body as a JSON object (an empty body is an empty object).
    ///
    /// - Throws: ``AuthError`` `BadRequest` for a body over 64 KiB or not a JSON object.
    static func body(_ request: Request) async throws -> [String: Any] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: 64 << 10)
        } catch {
            throw AuthError.badRequest("the request body is larger than 64 KiB")
        }
        let bytes = Data(buffer.readableBytesView)
        if bytes.isEmpty { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
            throw AuthError.badRequest("the request body is not a JSON object")
        }
        return object
    }

    /// A string field of a JSON body.
    static func string(_ body: [String: Any], _ key: String, or alternative: String? = nil) throws -> String {
        if let s = body[key] as? String { return s }
        if let alternative, let s = body[alternative] as? String { return s }
        throw AuthError.badRequest("the request body needs a string '\(key)'")
    }

    /// The bearer token of the Authorization header.
    static func bearer(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization] else {
            throw AuthError.invalidSession("the request has no Authorization header; send 'Authorization: Bearer <token>'")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw AuthError.invalidSession("the Authorization header is not 'Bearer <token>'")
        }
        return String(parts[1])
    }
}
