import Foundation

/// Unauthenticated requests that make a development-mode server create apps: for each
/// new app id `flood-<n>`, `GET /location`, then an anonymous login. Each app the server
/// accepts is a store (a directory, an LMDB environment, its descriptors); a server may
/// cap how many it creates, and then refuses the rest.
///
/// Outcomes: `created` (location and login answered 200), `refused at location <status>`,
/// `refused at login <status>`, `no answer`.
struct AppCreationFlood: Attack {
    let limit: Int
    let perSecond: Double

    var name: String { "app-creation flood" }

    func run(against target: AbuseTarget) {
        let http = LoopbackHTTP(port: target.port)
        var tried = 0
        while target.isRunning && tried < limit {
            let started = Date()
            let appId = "flood-\(tried)"
            tried += 1
            do {
                let location = try http.request("GET", "/api/client/v2.0/app/\(appId)/location", timeout: 10)
                if location.status != 200 {
                    target.tally.count(name, "refused at location \(location.status)", detail: location.body)
                } else {
                    let login = try http.request("POST", "/api/client/v2.0/app/\(appId)/auth/providers/anon-user/login", json: [:], timeout: 10)
                    target.tally.count(name, login.status == 200 ? "created" : "refused at login \(login.status)", detail: login.body)
                }
            } catch {
                target.tally.count(name, "no answer", detail: "\(error)")
            }
            target.pause(1 / perSecond - Date().timeIntervalSince(started))
        }
    }
}
