import ORCore

/// `orc_env_check` on a file, opened with ORCore directly (the file must exist and no
/// writer may be running).
enum EngineCheck {
    /// - Throws: ``ChaosFailure/Code/engineCheck`` naming the problem.
    static func run(path: String) throws {
        var env: OpaquePointer?
        let opened = orc_env_open(path, UInt32(ORC_ENV_NO_CREATE), nil, &env)
        guard opened == ORC_OK, let env else {
            throw ChaosFailure(.engineCheck, "\(path): orc_env_open failed: \(String(cString: orc_strerror(opened))) \(String(cString: orc_last_error()))")
        }
        defer { orc_env_close(env) }
        var problems = 0
        guard orc_env_check(env, &problems) == ORC_OK else {
            throw ChaosFailure(.engineCheck, "\(path): orc_env_check found \(problems) problem(s): \(String(cString: orc_last_error()))")
        }
    }
}
