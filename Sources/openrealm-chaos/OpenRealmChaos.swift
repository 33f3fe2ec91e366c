import ArgumentParser

/// `openrealm-chaos`: fault-injection runs that show what OpenRealm survives.
///
/// Each subcommand prints its figures and exits non-zero when anything was lost or
/// found inconsistent. `docs/RELIABILITY.md` lists the commands and the latest figures.
@main
struct OpenRealmChaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openrealm-chaos",
        abstract: "Fault-injection runs against OpenRealm: kill writers, then check nothing was lost.",
        subcommands: [CrashCommand.self, CrashWriterCommand.self]
    )
}
