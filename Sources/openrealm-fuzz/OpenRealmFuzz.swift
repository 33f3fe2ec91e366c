import Foundation

// Two builds of one executable (Package.swift, `fuzzing`):
//
// - Normal builds: a replay tool. `openrealm-fuzz <target> PATH...` runs each file (or
//   every file of each directory) through the target and prints how many ran; a finding
//   traps. `openrealm-fuzz seeds DIR` writes the seed corpora; `list` names the targets.
// - OPENREALM_FUZZ=1 (scripts/fuzz): libFuzzer's own `main` runs, calls
//   LLVMFuzzerInitialize (which picks the target from `--target=NAME`, an argument
//   libFuzzer ignores because it starts with `--`) and then LLVMFuzzerTestOneInput.

#if OPENREALM_FUZZ

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    var name = ProcessInfo.processInfo.environment["OPENREALM_FUZZ_TARGET"]
    for i in 0..<Int(argc.pointee) {
        guard let arg = argv.pointee[i].map({ String(cString: $0) }), arg.hasPrefix("--target=") else { continue }
        name = String(arg.dropFirst("--target=".count))
    }
    guard let name, let target = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("openrealm-fuzz: pass --target=NAME, one of \(names)\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected?.run(bytes)
    return 0
}

// SwiftPM links a debug executable of a package with tests with `--defsym
// main=openrealm_fuzz_main` (so that tests can call into executables), which overrides
// libFuzzer's own `main`. This is that entry point: it runs libFuzzer's driver, which
// calls LLVMFuzzerInitialize and LLVMFuzzerTestOneInput as libFuzzer's `main` would.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("openrealm_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzTestOneInput)
}

#else

@main
struct OpenRealmFuzz {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let command = args.first else { usage() }
        switch command {
        case "list":
            for target in FuzzTarget.all { print("\(target.name): \(target.summary)") }
        case "seeds":
            guard args.count == 2 else { usage() }
            writeSeeds(into: URL(fileURLWithPath: args[1]))
        default:
            guard let target = FuzzTarget.named(command), args.count >= 2 else { usage() }
            replay(target, paths: Array(args.dropFirst()))
        }
    }

    static func usage() -> Never {
        let names = FuzzTarget.all.map(\.name).joined(separator: "|")
        print("""
            usage: openrealm-fuzz <\(names)> FILE|DIR...   replay inputs through a target
                   openrealm-fuzz seeds DIR                  write seed corpora to DIR/<target>
                   openrealm-fuzz list                       describe the targets
            Fuzzing itself: scripts/fuzz <target> [seconds] (docs/RELIABILITY.md).
            """)
        exit(2)
    }

    static func replay(_ target: FuzzTarget, paths: [String]) {
        var count = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("openrealm-fuzz: no file or directory \(path)")
                exit(1)
            }
            let files: [String]
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files = names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
            } else {
                files = [path]
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("openrealm-fuzz: cannot read \(file)")
                    exit(1)
                }
                target.run([UInt8](data))
                count += 1
            }
        }
        print("\(target.name): \(count) inputs replayed without a failure")
    }

    static func writeSeeds(into directory: URL) {
        for target in FuzzTarget.all {
            let folder = directory.appendingPathComponent(target.name)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for seed in target.seeds() {
                    target.run(seed.bytes)
                    try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name))
                }
            } catch {
                print("openrealm-fuzz: cannot write seeds to \(folder.path): \(error)")
                exit(1)
            }
            print("\(target.name): \(target.seeds().count) seeds in \(folder.path)")
        }
    }
}

#endif
