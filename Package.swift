// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenRealm",
    products: [
        .library(name: "ORCore", targets: ["ORCore"]),
        .library(name: "OpenRealm", targets: ["OpenRealm"]),
        .library(name: "RealmSwift", targets: ["RealmSwift"]),
        .library(name: "OpenRealmWire", targets: ["OpenRealmWire"]),
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
            name: "OpenRealm",
            dependencies: ["ORCore"],
            path: "Sources/OpenRealm"
        ),
        .target(
            name: "OpenRealmWire",
            dependencies: ["CZstd"],
            path: "Sources/OpenRealmWire"
        ),
        .target(
            name: "RealmSwift",
            dependencies: ["OpenRealm"],
            path: "Sources/RealmSwift"
        ),
        .testTarget(
            name: "OpenRealmTests",
            dependencies: ["OpenRealm", "ORCore"],
            path: "Tests/OpenRealmTests"
        ),
        .testTarget(
            name: "OpenRealmWireTests",
            dependencies: ["OpenRealmWire"],
            path: "Tests/OpenRealmWireTests"
        ),
        .testTarget(
            name: "ORCoreTests",
            dependencies: ["ORCore"],
            path: "Tests/ORCoreTests"
        ),
    ]
)
