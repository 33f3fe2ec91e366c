import ArgumentParser
import Foundation

/// `openrealm-chaos`: fault-injection runs that show what OpenRealm survives.
///
/// Each subcommand prints its figures and exits non-zero when anything was lost or
/// found inconsistent. `docs/RELIABILITY.md` lists the commands and the latest figures.
@main
struct OpenRealmChaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openrealm-chaos",
        abstract: "Fault-injection runs against OpenRealm: kill writers, clients and the server, break connections, load and attack the server; check nothing was lost.",
        subcommands: [CrashCommand.self, NetworkCommand.self, LoadCommand.self, AbuseCommand.self, CrashWriterCommand.self, SyncClientCommand.self]
    )

    /// Runs the command line; `exec-child` (how children are started, see
    /// ``ParentDeath``) is handled before the argument parser sees it.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == ParentDeath.entry {
            ParentDeath.execChild(Array(arguments.dropFirst()))
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
