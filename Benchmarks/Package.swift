// swift-tools-version:6.1
// The benchmarks of OpenRealm, as their own package: GRDB and the benchmark tooling are
// dependencies of this package only, never of the library. The root package is
// depended on by path. Not built by CI (`scripts/test` builds the root package only).
//
//   swift run -c release --package-path Benchmarks openrealm-bench --quick
//   swift package --package-path Benchmarks benchmark      (ordo-one package-benchmark)
import PackageDescription

let package = Package(
    name: "OpenRealmBenchmarks",
    dependencies: [
        .package(name: "OpenRealm", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        // Raw LMDB doing the same work as the two databases, in C (the floor).
        .target(
            name: "CLMDBBench",
            path: "Sources/CLMDBBench",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("lmdb")]
        ),
        // The Task model and the generator of the records every side stores.
        .target(
            name: "BenchModel",
            dependencies: [.product(name: "OpenRealm", package: "OpenRealm")],
            path: "Sources/BenchModel"
        ),
        // The side-by-side table: OpenRealm, GRDB and raw LMDB, interleaved; then the
        // sync workloads (OpenRealm only) against an openrealm-server in a child process.
        .executableTarget(
            name: "openrealm-bench",
            dependencies: [
                "BenchModel", "CLMDBBench",
                .product(name: "OpenRealm", package: "OpenRealm"),
                .product(name: "OpenRealmSync", package: "OpenRealm"),
                .product(name: "OpenRealmServer", package: "OpenRealm"),
                .product(name: "OpenRealmPostgres", package: "OpenRealm"),
                .product(name: "OpenRealmWire", package: "OpenRealm"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/openrealm-bench"
        ),
        // OpenRealm's workloads under ordo-one's package-benchmark (latency
        // distributions, allocation counts, baselines to compare against).
        .executableTarget(
            name: "OpenRealmBenchmarks",
            dependencies: [
                "BenchModel",
                .product(name: "OpenRealm", package: "OpenRealm"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/OpenRealmBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
