import EaselLocking
import EaselTestSupport
import Foundation

/// `easel serve` as a child process on 127.0.0.1 and a port the system
/// chose, on its own database. Whoever starts one stops it: `terminate()`,
/// `kill()`, or the deinit, which SIGKILLs a server still running.
final class ServerProcess {
    let process = Process()
    let port: Int
    let databasePath: String
    private let output = Pipe()
    private let errors = Pipe()
    /// What the server logged so far (standard error, read as it comes, so
    /// a busy server never blocks on a full pipe).
    private let logged = Locked(Data())

    /// A server; `environment` is added to the test's own (EASEL_SECRET is
    /// not inherited, so a server has a secret only when a test gives one).
    /// It logs JSON at debug level, everything it would say.
    init(database: String, port: Int = 0, arguments: [String] = [], environment: [String: String] = [:]) throws {
        databasePath = database
        process.executableURL = try Self.executable()
        process.arguments =
            ["serve", "--port", String(port), "--db", database, "--log-format", "json", "--log-level", "debug"]
            + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "EASEL_SECRET" }
            .merging(environment) { _, given in given }
        process.standardOutput = output
        process.standardError = errors
        errors.fileHandleForReading.readabilityHandler = { [logged] handle in
            let data = handle.availableData
            logged.withLock { $0.append(data) }
        }
        try process.run()
        // The start line names the port; wait for it, for at most 30 s.
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        var port: Int?
        while port == nil, Date() < deadline, process.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"ws://[^ :]+:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last ?? "")
            }
        }
        guard let port else {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let logged = String(decoding: self.logged.withLock { $0 }, as: UTF8.self)
            throw ServerProcessError("easel serve did not start: \(text) \(logged)")
        }
        self.port = port
    }

    deinit {
        if process.isRunning { kill() }
        errors.fileHandleForReading.readabilityHandler = nil
    }

    /// Everything the server logged so far.
    var log: String {
        String(decoding: logged.withLock { $0 }, as: UTF8.self)
    }

    /// The log's lines as JSON objects (a line that does not parse fails
    /// the test that reads it).
    var logRecords: [[String: Any]] {
        log.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["unparsed": String(line)]
        }
    }

    /// SIGTERM, then waits; returns the exit status and how long it took.
    func terminate() -> (status: Int32, seconds: Double) {
        let start = Date()
        Foundation.kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return (process.terminationStatus, Date().timeIntervalSince(start))
    }

    /// SIGKILL, then waits; nothing when the server has already exited (its
    /// process ID may belong to someone else by now).
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The server's resident memory now, from /proc; nil once it has exited.
    var residentBytes: Int? { Self.residentBytes(of: process.processIdentifier) }

    static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kibibytes * 1024
    }

    /// What the server printed on standard output, once it has exited.
    var printed: String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    static func executable() throws -> URL {
        try builtExecutable("easel")
    }

    static var packageRoot: URL { EaselTestSupport.packageRoot }
}

/// Runs `easel` with these arguments to its end (without EASEL_SECRET from
/// the test's environment): its exit status and what it printed.
func runEasel(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    try EaselChild(arguments).wait()
}

/// `easel` running in the background while the test does something to it
/// (kills its server, say). Its output is small, so reading it after the
/// exit cannot block.
final class EaselChild: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    /// `input` is written to its standard input, which is then closed.
    init(_ arguments: [String], input: String? = nil) throws {
        process.executableURL = try ServerProcess.executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "EASEL_SECRET" }
        process.standardOutput = output
        process.standardError = errors
        let stdin = Pipe()
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            // On a thread of its own: more than a pipe holds would block
            // until the child reads it.
            Thread.detachNewThread {
                stdin.fileHandleForWriting.write(Data(input.utf8))
                try? stdin.fileHandleForWriting.close()
            }
        }
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// `wait`, on a thread of its own: a chaos run takes minutes, and a
    /// test blocking a thread of Swift's cooperative pool (two on this
    /// machine) for that long starves every async test beside it; a blob
    /// cache test waited 4 s for a cancellation that way.
    func finished(timeout: Double = 180) async -> (status: Int32, output: String, errors: String) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait(timeout: timeout)) }
        }
    }

    /// Waits for the exit, killing the child after `timeout` seconds.
    func wait(timeout: Double = 180) -> (status: Int32, output: String, errors: String) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The Python client of Tests/OutsideClients, run to completion or in the
/// background; it prints one JSON line per result.
final class OutsideClient {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    /// What the client printed and no `nextLine` has taken yet, read as it
    /// comes so that waiting for a line never blocks past its deadline.
    private let printed = Locked(Data())

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = ServerProcess.packageRoot.appendingPathComponent("Tests/OutsideClients/easel_ws_client.py").path
        process.arguments = ["python3", script] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
    }

    /// Runs a client to the end and decodes its last line.
    static func run(_ arguments: [String]) throws -> [String: Any] {
        let client = try OutsideClient(arguments)
        return try client.finish()
    }

    /// The first line the client printed that no earlier call returned,
    /// waited on for at most `seconds`.
    func nextLine(within seconds: TimeInterval = 20) throws -> [String: Any] {
        let pipe = output.fileHandleForReading
        if pipe.readabilityHandler == nil, process.isRunning {
            pipe.readabilityHandler = { [printed] handle in
                let data = handle.availableData
                // At the end of the output the handler is called again and
                // again with nothing: stop it, or it spins a core.
                if data.isEmpty { handle.readabilityHandler = nil }
                printed.withLock { $0.append(data) }
            }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let line = takeLine() { return try decode(line, waited: seconds) }
            if !process.isRunning {
                drainExited()
                return try decode(takeLine() ?? String(decoding: printed.value, as: UTF8.self), waited: seconds)
            }
            if Date() >= deadline { return try decode(String(decoding: printed.value, as: UTF8.self), waited: seconds) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func finish() throws -> [String: Any] {
        // Read before waiting: a client with more to print than a pipe holds
        // would never exit otherwise.
        drainExited()
        process.waitUntilExit()
        return try decode(String(decoding: printed.value, as: UTF8.self), waited: nil)
    }

    private func takeLine() -> String? {
        printed.withLock { buffer -> String? in
            guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
            buffer = Data(buffer[(end + 1)...])
            return line
        }
    }

    /// Moves what the client prints until it exits into `printed`.
    private func drainExited() {
        let pipe = output.fileHandleForReading
        pipe.readabilityHandler = nil
        let rest = pipe.readDataToEndOfFile()
        printed.withLock { $0.append(rest) }
    }

    private func decode(_ text: String, waited: TimeInterval?) throws -> [String: Any] {
        guard let line = text.split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            let running = process.isRunning
            let stderr =
                running ? "" : String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let when = waited.map { running ? " within \(Int($0)) s (still running)" : " before it exited" } ?? ""
            throw ServerProcessError("the outside client printed \(text.debugDescription)\(when); stderr: \(stderr)")
        }
        return object
    }
}

/// A fresh database path in a temporary folder, removed when the tests'
/// process exits (not before: a test may stop a server and start another
/// on the same file, so no one server may remove it).
func temporaryDatabase() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-serve-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    TemporaryFolders.shared.add(folder)
    return folder.appendingPathComponent("easel.db").path
}

/// Folders to remove at exit: a suite run made about 80 MB of them.
private final class TemporaryFolders: Sendable {
    static let shared: TemporaryFolders = {
        atexit { TemporaryFolders.shared.removeAll() }
        return TemporaryFolders()
    }()
    private let folders = Locked<[URL]>([])

    func add(_ folder: URL) {
        folders.withLock { $0.append(folder) }
    }

    func removeAll() {
        for folder in folders.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}

extension ServerProcess {
    /// The log records with this message so far.
    func records(_ message: String) -> [[String: Any]] {
        logRecords.filter { $0["message"] as? String == message }
    }

    /// Waits up to 10 s for a record with this message to be logged.
    func awaitRecord(_ message: String) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let found = records(message).first { return found }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }
}
