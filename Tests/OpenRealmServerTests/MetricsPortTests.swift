import Foundation
import XCTest
@testable import OpenRealmServer

/// `--metrics-port`: the metrics on an address of their own, and only there.
final class MetricsPortTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.metricsPort = 0
    }

    func testMetricsAreServedOnTheirOwnPortOnly() throws {
        let metricsPort = try server.waitUntilMetricsRunning()
        XCTAssertNotEqual(metricsPort, port)
        _ = try anonymousToken()

        XCTAssertEqual(try http.get("/metrics").status, 404, "the main port no longer serves the metrics")
        XCTAssertEqual(try http.get("/health").status, 200)
        let reply = try TestHTTP(port: metricsPort).get("/metrics")
        XCTAssertEqual(reply.status, 200)
        let samples = try MetricsTests.samples(of: reply.body)
        XCTAssertEqual(samples["openrealm_http_requests_total{route=\"auth\"}"], 1, "the login on the main port")
        XCTAssertEqual(samples["openrealm_http_requests_total{route=\"metrics\"}"], 2, "the 404 on the main port and this scrape")
        XCTAssertEqual(try TestHTTP(port: metricsPort).get("/health").status, 404, "the metrics port serves nothing else")
    }

    func testTheMetricsPortIsReleasedWhenTheServerStops() throws {
        let metricsPort = try server.waitUntilMetricsRunning()
        stopServer()
        XCTAssertThrowsError(try TestSocket(port: metricsPort), "nothing listens on the metrics port any more")
    }

    func testAMetricsPortInUseIsNamedAtStart() async throws {
        let taken = try server.waitUntilMetricsRunning()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDirectory.appendingPathComponent("second"))
        configuration.metricsPort = taken
        let second = try makeServer(configuration: configuration, logger: makeLogger())
        do {
            try await second.run()
            XCTFail("a second server started with a metrics port in use")
        } catch let error as ServerError {
            XCTAssertTrue(error.message.contains("cannot listen on 127.0.0.1:\(taken): the port is in use"), error.message)
            XCTAssertTrue(error.message.contains("--metrics-port"), error.message)
        }
    }

    func testBadMetricsAddressesAreRefused() {
        var configuration = ServerConfiguration(port: 9090, dataDirectory: dataDirectory)
        configuration.metricsPort = 70_000
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("metrics port 70000 is out of range"), "\($0)") }
        configuration.metricsPort = 9090
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("is the server's own port"), "\($0)") }
        configuration.metricsHost = "127.0.0.2"
        XCTAssertNoThrow(try configuration.validate(), "the same port on another address")
        configuration.metricsPort = nil
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("without a metrics port"), "\($0)") }
    }
}
