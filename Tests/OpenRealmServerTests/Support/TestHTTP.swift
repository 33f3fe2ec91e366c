import Foundation

/// A one-request HTTP/1.1 client (`Connection: close`) for the auth routes.
struct TestHTTP {
    let port: Int

    struct Reply {
        var status: Int
        var body: [String: Any]
        /// The body when it is a JSON array.
        var list: [[String: Any]] = []
        /// The response head's lines (status line and headers).
        var head: String = ""
        var errorCode: String? { body["error_code"] as? String }
        var message: String { body["error"] as? String ?? "" }
    }

    /// `headers`: more header lines (`"X-Forwarded-For: 192.0.2.1"`).
    func request(_ method: String, _ path: String, json: [String: Any]? = nil, bearer: String? = nil,
                 headers: [String] = []) throws -> Reply {
        let socket = try TestSocket(port: port)
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if json != nil { head += "Content-Type: application/json\r\n" }
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        for header in headers { head += header + "\r\n" }
        head += "\r\n"
        try socket.write(Array(head.utf8) + Array(body))
        let raw = try socket.readToEnd(deadline: Date().addingTimeInterval(10))
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw TestSocket.Failure(description: "no HTTP head in \(text)") }
        let statusLine = text[..<split.lowerBound].split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        let bodyText = String(text[split.upperBound...])
        let json = try? JSONSerialization.jsonObject(with: Data(bodyText.utf8))
        return Reply(status: status, body: json as? [String: Any] ?? [:], list: json as? [[String: Any]] ?? [],
                     head: String(text[..<split.lowerBound]))
    }

    /// A GET whose reply is not JSON: the status, the head and the body text.
    func get(_ path: String) throws -> (status: Int, head: String, body: String) {
        let socket = try TestSocket(port: port)
        try socket.write(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        let text = String(decoding: try socket.readToEnd(deadline: Date().addingTimeInterval(10)), as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw TestSocket.Failure(description: "no HTTP head in \(text)") }
        let head = String(text[..<split.lowerBound])
        let status = Int(head.split(separator: "\r\n").first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, String(text[split.upperBound...]))
    }
}
