import ORCore
import OpenRealmSyncCore

/// `orc_env_check` on a file, opened with ORCore directly (the file must exist and no
/// writer may be running).
enum EngineCheck {
    /// - Throws: ``ChaosFailure/Code/engineCheck`` naming the problem.
    static func run(path: String) throws {
        let environment: ORCoreEnvironment
        do { environment = try ORCoreEnvironment(path: path, flags: UInt32(ORC_ENV_NO_CREATE)) } catch {
            throw ChaosFailure(.engineCheck, "\(path): \(error.message)")
        }
        if let damage = environment.check() {
            throw ChaosFailure(.engineCheck, "\(path): orc_env_check found \(damage.problems) problem(s): \(damage.first.message)")
        }
    }
}
