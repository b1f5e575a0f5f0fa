import Foundation

/// HAProxy run with a configuration written into a folder, its log beside
/// it; stopped by `stop()` (or when the object goes).
final class HAProxyProcess: Sendable {
    private let process = Process()

    /// Writes `config` as `folder/haproxy.cfg`, starts HAProxy on it and
    /// waits until it listens on its port.
    init(_ config: HAProxyConfig, folder: String) throws {
        let file = folder + "/haproxy.cfg"
        try config.text.write(toFile: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["-f", file, "-db"]
        let log = folder + "/haproxy.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        try Self.waitForListener(port: config.port, while: process)
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// What the descriptor limit HAProxy inherits lets it hold: two a
    /// connection, and some to spare.
    static func connectionLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_000 }
        return max(1_000, Int(min(limit.rlim_cur, 1 << 20)) / 2 - 100)
    }

    private static func executable() throws -> String {
        for candidate in ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw ServedProcessError("HAProxy is not installed (Debian's haproxy package; .ci/setup installs it)")
    }

    private static func waitForListener(port: Int, while process: Process) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, process.isRunning {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = Loopback.connect(socket, port: port)
            close(socket)
            if connected { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ServedProcessError("HAProxy did not listen on 127.0.0.1:\(port)")
    }
}
