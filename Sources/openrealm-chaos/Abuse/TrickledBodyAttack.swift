import Foundation

/// Registrations whose body (1,000 bytes declared) trickles in a byte every half
/// second, ``concurrent`` at once: the server must cut each off at its body deadline
/// however steadily it trickles. Each one that ends is replaced, up to ``limit`` in all.
///
/// Outcomes: `cut off by the server` (with its lifetime from the head), `answered
/// <status>` (the server answered before the body ended), `open at the end`, `could not
/// connect`.
struct TrickledBodyAttack: Attack {
    let concurrent: Int
    let limit: Int

    var name: String { "trickled bodies" }

    private struct Trickle {
        let connection: RawConnection
        let opened: Date
    }

    func run(against target: AbuseTarget) {
        let byte: [UInt8] = [UInt8(ascii: " ")]
        holdOpen(concurrent: concurrent, limit: limit, against: target, open: { self.open(target) }, ended: { trickle in
            // One byte a tick; the socket always has room for it.
            let outcome = (try? trickle.connection.sendAvailable(byte)) == nil ? "cut off by the server" : ending(trickle.connection)
            guard let outcome else { return false }
            target.tally.count(name, outcome)
            if outcome == "cut off by the server" {
                target.tally.lived(name, seconds: Date().timeIntervalSince(trickle.opened))
            }
            trickle.connection.close()
            return true
        }, close: { $0.connection.close() })
    }

    /// How the server ended the request, without waiting: nil while it has not.
    private func ending(_ connection: RawConnection) -> String? {
        if connection.wasReset { return "cut off by the server" }
        do {
            guard let bytes = try connection.receive(deadline: Date(), what: "the answer") else { return "cut off by the server" }
            let status = String(decoding: bytes.prefix(12), as: UTF8.self).split(separator: " ").dropFirst().first ?? "?"
            return "answered \(status)"
        } catch {
            return nil
        }
    }

    private func open(_ target: AbuseTarget) -> Trickle? {
        do {
            let connection = try RawConnection(port: target.port, timeout: 10)
            let head = "POST /api/client/v2.0/app/\(target.appId)/auth/providers/local-userpass/register HTTP/1.1\r\nHost: 127.0.0.1:\(target.port)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
            try connection.send(Array(head.utf8), deadline: Date().addingTimeInterval(10), what: "the head")
            return Trickle(connection: connection, opened: Date())
        } catch {
            target.tally.count(name, "could not connect", detail: "\(error)")
            return nil
        }
    }
}
