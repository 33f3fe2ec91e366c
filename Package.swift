// swift-tools-version:6.1
import PackageDescription

/// `scripts/fuzz` builds `openrealm-fuzz` with OPENREALM_FUZZ=1: the modules it fuzzes get
/// libFuzzer's coverage instrumentation and AddressSanitizer (`-O`: Swift adds no coverage
/// at -Onone), and the executable links libFuzzer (docs/RELIABILITY.md, "Fuzzing").
/// Otherwise nothing changes and `openrealm-fuzz` is a replay tool.
let fuzzing = Context.environment["OPENREALM_FUZZ"] == "1"
let fuzzed: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-O"])] : []

let package = Package(
    name: "OpenRealm",
    products: [
        .library(name: "ORCore", targets: ["ORCore"]),
        .library(name: "OpenRealm", targets: ["OpenRealm"]),
        .library(name: "RealmSwift", targets: ["RealmSwift"]),
        .library(name: "OpenRealmWire", targets: ["OpenRealmWire"]),
        .library(name: "OpenRealmSync", targets: ["OpenRealmSync"]),
        .library(name: "OpenRealmServer", targets: ["OpenRealmServer"]),
        .library(name: "OpenRealmPostgres", targets: ["OpenRealmPostgres"]),
        .executable(name: "openrealm-server", targets: ["openrealm-server"]),
        .executable(name: "openrealm-tour", targets: ["openrealm-tour"]),
        .executable(name: "openrealm-chaos", targets: ["openrealm-chaos"]),
        .executable(name: "openrealm-fuzz", targets: ["openrealm-fuzz"]),
    ],
    dependencies: [
        // OpenRealm, OpenRealmQuery, ORCore and OpenRealmWire use none of these. The sync
        // server uses them all; the sync client (OpenRealmSync) only swift-nio's WebSocket
        // and HTTP client and swift-nio-ssl for TLS, which the server's dependencies
        // (HummingbirdTLS) already bring into the graph.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        // TLS for the sync client (wss://, and https:// when a private CA is trusted) and,
        // through HummingbirdTLS, for the server's --tls-cert/--tls-key.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The server's /metrics: swift-metrics objects over a Prometheus registry per server.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.1.0"),
        // The server's PostgreSQL store (OpenRealmPostgres only): the client, its connection
        // pool, TLS to the database.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            path: "CSources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .systemLibrary(
            name: "CZstd",
            path: "CSources/CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        .target(
            name: "ORCore",
            dependencies: ["CLMDB", "CZstd"],
            path: "CSources/ORCore",
            publicHeadersPath: "include",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("lmdb"), .linkedLibrary("zstd"), .linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        .target(
            // The query language (RQL): lexer, parser, AST, canonical renderer, the schema a
            // query compiles against, the compiler to ORCore programs, and the values a query
            // holds (ObjectId, Decimal128). The local API re-exports it; the server uses it
            // without linking the local API.
            name: "OpenRealmQuery",
            dependencies: ["ORCore"],
            path: "Sources/OpenRealmQuery",
            swiftSettings: fuzzed
        ),
        .target(
            name: "OpenRealm",
            dependencies: ["ORCore", "OpenRealmQuery"],
            path: "Sources/OpenRealm"
        ),
        .target(
            // What the chaos tool and the test suites share: the seeded random generator
            // their randomized runs replay from, and a free loopback port to start a
            // server (or a proxy, or PostgreSQL) on.
            name: "OpenRealmTestSupport",
            path: "Sources/OpenRealmTestSupport"
        ),
        .target(
            name: "OpenRealmWire",
            dependencies: ["CZstd"],
            path: "Sources/OpenRealmWire",
            swiftSettings: fuzzed
        ),
        .target(
            // What the sync client and the sync server share beyond the wire: the list
            // transformation, write stamps, wire value <-> ORCore value conversions.
            name: "OpenRealmSyncCore",
            dependencies: ["ORCore", "OpenRealmWire"],
            path: "Sources/OpenRealmSyncCore"
        ),
        .target(
            name: "OpenRealmSync",
            dependencies: [
                "OpenRealm",
                "OpenRealmWire",
                "OpenRealmSyncCore",
                "ORCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            path: "Sources/OpenRealmSync"
        ),
        .target(
            name: "RealmSwift",
            dependencies: ["OpenRealm", "OpenRealmSync"],
            path: "Sources/RealmSwift"
        ),
        .target(
            name: "OpenRealmServer",
            dependencies: [
                "OpenRealmQuery",
                "OpenRealmWire",
                "OpenRealmSyncCore",
                "ORCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/OpenRealmServer",
            swiftSettings: fuzzed
        ),
        .target(
            // The server's store on PostgreSQL, behind the storage seam of OpenRealmServer
            // (docs/design/STORAGE-SEAM.md): several server processes over one database.
            // Its own target so that nothing else links postgres-nio.
            name: "OpenRealmPostgres",
            dependencies: [
                "OpenRealmServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/OpenRealmPostgres"
        ),
        .target(
            // What the test suites that need a PostgreSQL share: one started per test
            // process (initdb into a temporary directory) and a database per test.
            name: "OpenRealmPostgresTestSupport",
            dependencies: ["OpenRealmPostgres", "OpenRealmTestSupport"],
            path: "Sources/OpenRealmPostgresTestSupport"
        ),
        .executableTarget(
            name: "openrealm-server",
            dependencies: [
                "OpenRealmServer",
                // `serve --store postgres://…`: only the executable links the PostgreSQL store.
                "OpenRealmPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/openrealm-server"
        ),
        .executableTarget(
            // The README's main command: a guided walk through sync against an
            // in-process openrealm-server (`swift run openrealm-tour`).
            name: "openrealm-tour",
            dependencies: [
                "RealmSwift",
                "OpenRealmServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/openrealm-tour"
        ),
        .executableTarget(
            // Fault injection (docs/RELIABILITY.md): `crash` kills a local-realm writer, a
            // synced client or the server at random points; `network` runs clients through
            // a fault-injecting proxy; `load` runs 1,000 simulated clients; `abuse` attacks the
            // server's resources beside ordinary clients. Each checks that nothing was lost
            // (or that the server stayed bounded). It starts the built `openrealm-server`
            // found beside it.
            name: "openrealm-chaos",
            dependencies: [
                "OpenRealm",
                "ORCore",
                "RealmSwift",
                "OpenRealmSync",
                "OpenRealmSyncCore",
                "OpenRealmWire",
                "OpenRealmTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Sources/openrealm-chaos"
        ),
        .executableTarget(
            // Fuzz targets (docs/RELIABILITY.md): `openrealm-fuzz <target> FILE|DIR...` replays
            // inputs; built by `scripts/fuzz` with OPENREALM_FUZZ=1 it runs libFuzzer instead.
            name: "openrealm-fuzz",
            dependencies: [
                "OpenRealmQuery",
                "OpenRealmWire",
                "OpenRealmServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/openrealm-fuzz",
            swiftSettings: fuzzed + (fuzzing ? [.define("OPENREALM_FUZZ")] : []),
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
        ),
        .testTarget(
            name: "OpenRealmTests",
            dependencies: ["OpenRealm", "OpenRealmQuery", "RealmSwift", "ORCore", "OpenRealmTestSupport"],
            path: "Tests/OpenRealmTests"
        ),
        .testTarget(
            name: "OpenRealmWireTests",
            // The list transformation's download half is tested beside the protocol.
            dependencies: ["OpenRealmWire", "OpenRealmSyncCore", "OpenRealmTestSupport"],
            path: "Tests/OpenRealmWireTests"
        ),
        .testTarget(
            // The owner of ORCore handles (environments, transactions, metadata, errors).
            name: "OpenRealmSyncCoreTests",
            dependencies: ["OpenRealmSyncCore", "ORCore"],
            path: "Tests/OpenRealmSyncCoreTests"
        ),
        .testTarget(
            name: "OpenRealmServerTests",
            dependencies: ["OpenRealmServer", "OpenRealmWire", "OpenRealmSyncCore", "OpenRealmTestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           // EmbeddingTests mounts the server's routes in an application of its own.
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           // Built so that OperatorCommandLineTests can run it.
                           "openrealm-server",
                           // The same suite on PostgreSQL (OPENREALM_TEST_STORE=postgres).
                           "OpenRealmPostgres", "OpenRealmPostgresTestSupport"],
            path: "Tests/OpenRealmServerTests"
        ),
        .testTarget(
            // Runs against a PostgreSQL the tests start themselves (initdb into a temporary
            // directory, Debian's `postgresql`, which scripts/setup and .ci/run install).
            name: "OpenRealmPostgresTests",
            dependencies: ["OpenRealmPostgres", "OpenRealmServer", "OpenRealmWire", "OpenRealmTestSupport", "OpenRealmPostgresTestSupport",
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Tests/OpenRealmPostgresTests"
        ),
        .testTarget(
            name: "OpenRealmSyncTests",
            dependencies: ["RealmSwift", "OpenRealmSync", "OpenRealmServer", "OpenRealmWire", "OpenRealmSyncCore", "ORCore", "OpenRealmTestSupport",
                           // Built so that TourTests can run it.
                           "openrealm-tour",
                           .product(name: "Logging", package: "swift-log"),
                           // JWTLoginTests signs custom JWTs.
                           .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/OpenRealmSyncTests"
        ),
        .testTarget(
            // Runs short `openrealm-chaos` runs (a dependency so that it is built, with the
            // server it starts) and tampers with their files to show that the checks fail.
            name: "OpenRealmChaosTests",
            dependencies: ["openrealm-chaos", "openrealm-server", "OpenRealm", "OpenRealmTestSupport"],
            path: "Tests/OpenRealmChaosTests"
        ),
        .testTarget(
            name: "ORCoreTests",
            dependencies: ["ORCore"],
            path: "Tests/ORCoreTests"
        ),
    ]
)
