import Foundation

/// A server run as a child process of this executable (so its CPU time and
/// memory are its own), stopped with SIGKILL when done: by the benchmarks,
/// and by the fault runs, which kill it on purpose.
final class ServedProcess: Sendable {
    private let process = Process()
    private let output = Pipe()
    let port: Int

    /// Runs `easel ARGUMENTS` and waits for the port in its start line.
    /// Its log goes to the file `log` (appended to) when given, else to
    /// this process's standard error.
    convenience init(_ arguments: [String], log: String? = nil) throws {
        guard let executable = Bundle.main.executableURL else {
            throw ServedProcessError("cannot find the easel executable")
        }
        if let command = Self.profilingCommand, let program = command.first {
            try self.init(program: URL(fileURLWithPath: program), command.dropFirst() + arguments, log: log)
        } else {
            try self.init(program: executable, arguments, log: log)
        }
    }

    /// Runs another program (a peer's server), found on the PATH, which
    /// prints "127.0.0.1:PORT" once it listens.
    convenience init(command: [String]) throws {
        try self.init(program: URL(fileURLWithPath: "/usr/bin/env"), command, log: nil)
    }

    private init(program: URL, _ arguments: [String], log: String?) throws {
        process.executableURL = program
        process.arguments = arguments
        process.standardOutput = output
        if let log {
            if !FileManager.default.fileExists(atPath: log) {
                _ = FileManager.default.createFile(atPath: log, contents: nil)
            }
            guard let file = FileHandle(forWritingAtPath: log) else { throw ServedProcessError("cannot write \(log)") }
            file.seekToEndOfFile()
            process.standardError = file
        }
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
                let port = Int(text[range].split(separator: ":").last ?? "")
            {
                self.port = port
                // Read and dropped from now on: a full pipe would stop the
                // server at its next log line.
                output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
                return
            }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw ServedProcessError(
            "\(program.lastPathComponent) \(arguments.joined(separator: " ")) did not start: \(text)")
    }

    deinit {
        stop()
    }

    /// `EASEL_BENCH_SERVER_COMMAND`, split at spaces: what runs in place of
    /// this executable, given the same arguments, to profile the server a
    /// benchmark loads — e.g. `valgrind --tool=callgrind
    /// --callgrind-out-file=/tmp/cg.%p /tmp/easel-without-debug-info`
    /// (Benchmarks/README.md). Such a server is asked to stop with SIGTERM
    /// and given a minute before SIGKILL.
    private static let profilingCommand: [String]? = ProcessInfo.processInfo
        .environment["EASEL_BENCH_SERVER_COMMAND"]?.split(separator: " ").map(String.init)

    /// False once it exited, by itself or by `stop()`.
    var isRunning: Bool { process.isRunning }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends a signal (SIGSTOP, SIGCONT) and returns at once.
    func signal(_ signal: Int32) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
    }

    /// Asks it to stop (SIGTERM: a server stops cleanly) and waits up to
    /// `seconds`, then kills it.
    func terminate(within seconds: Double = 30) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGCONT)
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        stop()
    }

    func stop() {
        guard process.isRunning else { return }
        if Self.profilingCommand != nil {
            // A profiler writes its counts when the server exits, not when killed.
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
    }

    /// Seconds of CPU (user and system) the process has used.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ")
        else { return 0 }
        // Fields after the name start at field 3; utime and stime are 14 and 15.
        let fields = stat[afterName.upperBound...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// File descriptors open now: sockets, database files, pipes.
    var openFileDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
    }

    /// Resident memory now, in bytes.
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}

struct ServedProcessError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
