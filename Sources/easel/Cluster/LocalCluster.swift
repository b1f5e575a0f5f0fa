import EaselLocking
import EaselPostgres
import Foundation

/// How `easel cluster` reports what happens: lines for people, or JSON.
enum Report {
    case text, json, silent

    func say(_ event: String, _ fields: [String: any Sendable], text: String) {
        let line: String
        switch self {
        case .silent:
            return
        case .text:
            line = "easel cluster: " + text
        case .json:
            var object: [String: Any] = ["event": event]
            for (key, value) in fields { object[key] = value }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        }
        // Straight to the descriptor: a script waits for these lines.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// PostgreSQL, the nodes and HAProxy on loopback, as `easel cluster` runs
/// them; everything it started is stopped by `stop()`.
final class LocalCluster: Sendable {
    private struct Slot {
        var name: String
        var port: Int
        var process: ServedProcess?
        var spare: Bool
    }

    private let postgres: LocalPostgres
    private let router: HAProxyProcess
    private let folder: String
    private let removeFolder: Bool
    private let slots: Locked<[Slot]>
    private let nodeArguments: [String]
    private let adminSocket: String
    private let report: Report
    private let stopRequested = DispatchSemaphore(value: 0)
    private let stopped = Locked(false)

    init(
        nodes: Int, spare: Int, routerPort: Int, folder given: String?, leaseSeconds: Double, web: String?,
        report: Report
    ) throws {
        self.report = report
        self.routerPort = routerPort
        if let given {
            try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
            folder = given
        } else {
            folder = NSTemporaryDirectory() + "easel-cluster-" + UUID().uuidString.prefix(8)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        removeFolder = given == nil
        postgres = try LocalPostgres(folder: folder + "/postgres")
        report.say(
            "postgres", ["url": postgres.url, "port": postgres.port], text: "PostgreSQL at \(postgres.url)")
        nodeArguments =
            [
                "serve", "--store", postgres.url, "--lease-seconds", "\(leaseSeconds)", "--router",
                "127.0.0.1:\(routerPort)",
            ]
            + (web.map { ["--web", $0] } ?? [])
        var slots: [Slot] = []
        for index in 1...(nodes + spare) {
            slots.append(Slot(name: "node\(index)", port: try LocalPostgres.freePort(), spare: index > nodes))
        }
        adminSocket = folder + "/haproxy.sock"
        // Nodes first: the router's first health checks find them serving.
        for index in slots.indices where !slots[index].spare {
            slots[index].process = try Self.launch(slots[index], nodeArguments, folder: folder, report: report)
        }
        self.slots = Locked(slots)
        router = try HAProxyProcess(
            HAProxyConfig(
                port: routerPort,
                nodes: slots.map { HAProxyConfig.Node(name: $0.name, port: $0.port, spare: $0.spare) },
                maxConnections: HAProxyProcess.connectionLimit(), adminSocket: adminSocket),
            folder: folder)
        report.say(
            "ready", ["router": routerPort, "nodes": slots.filter { !$0.spare }.map(\.name), "folder": folder],
            text:
                "serving ws://127.0.0.1:\(routerPort) (\(nodes) nodes behind HAProxy; logs in \(folder)); Ctrl-C stops")
    }

    /// Starts a node, or starts it again after it stopped.
    func start(_ name: String) throws {
        guard let slot = slots.withLock({ $0.first { $0.name == name } }) else {
            throw ServedProcessError("no node \(name)")
        }
        if slot.process?.isRunning == true { return }
        let process = try Self.launch(slot, nodeArguments, folder: folder, report: report)
        slots.withLock { slots in
            guard let index = slots.firstIndex(where: { $0.name == name }) else { return }
            slots[index].process = process
        }
    }

    private static func launch(_ slot: Slot, _ arguments: [String], folder: String, report: Report) throws
        -> ServedProcess
    {
        let process = try ServedProcess(
            arguments + ["--node-name", slot.name, "--port", "\(slot.port)"], log: folder + "/\(slot.name).log")
        report.say(
            "node", ["name": slot.name, "port": slot.port, "pid": Int(process.processIdentifier)],
            text: "\(slot.name) serving on 127.0.0.1:\(slot.port) (pid \(process.processIdentifier))")
        return process
    }

    /// The router's port.
    let routerPort: Int
    /// libpq's URL of the cluster's PostgreSQL.
    var postgresURL: String { postgres.url }

    /// The nodes running now (paused ones included), by name.
    var runningNodes: [String] {
        slots.withLock { $0.filter { $0.process?.isRunning == true }.map(\.name) }
    }

    private func process(_ name: String) throws -> ServedProcess {
        guard let process = slots.withLock({ $0.first { $0.name == name }?.process }) else {
            throw ServedProcessError("no node \(name) has run")
        }
        return process
    }

    /// SIGKILL.
    func kill(_ name: String) throws { try process(name).stop() }
    /// SIGSTOP: the node keeps its sockets, and stops renewing.
    func pause(_ name: String) throws { try process(name).signal(SIGSTOP) }
    func resume(_ name: String) throws { try process(name).signal(SIGCONT) }
    /// SIGTERM: the node drains.
    func drain(_ name: String) throws { try process(name).terminate() }

    /// Starts the next spare node and lets the router send it documents;
    /// its name.
    @discardableResult
    func add() throws -> String {
        guard let next = slots.withLock({ $0.first { $0.spare && $0.process == nil } }) else {
            throw ServedProcessError("no spare slot left (--spare)")
        }
        try start(next.name)
        try admin("enable server nodes/\(next.name)")
        return next.name
    }

    /// Carries out a line of standard input; false for `quit`.
    func command(_ line: String) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let verb = words.first else { return true }
        let name = words.dropFirst().first ?? ""
        do {
            switch verb {
            case "kill": try kill(name)
            case "pause": try pause(name)
            case "resume": try resume(name)
            case "stop": try drain(name)
            case "start": try start(name)
            case "add": try add()
            case "quit":
                requestStop()
                return false
            default:
                throw ServedProcessError("unknown command \(verb): kill, pause, resume, stop, start, add or quit")
            }
            report.say("done", ["command": line], text: "done: \(line)")
        } catch {
            report.say("failed", ["command": line, "error": "\(error)"], text: "\(line) failed: \(error)")
        }
        return true
    }

    /// One command to HAProxy's admin socket.
    private func admin(_ command: String) throws {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServedProcessError("cannot open a socket") }
        defer { close(socket) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(adminSocket.utf8CString)
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else {
            throw ServedProcessError("the admin socket's path is too long: \(adminSocket)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = UInt8(bitPattern: byte) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw ServedProcessError("cannot reach HAProxy's admin socket") }
        let line = Array((command + "\n").utf8)
        _ = line.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        var answer = [UInt8](repeating: 0, count: 4096)
        let read = Glibc.read(socket, &answer, answer.count)
        let said = String(decoding: answer.prefix(max(read, 0)), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard said.isEmpty else { throw ServedProcessError("HAProxy said: \(said)") }
    }

    func requestStop() {
        stopRequested.signal()
    }

    func waitUntilStopRequested() {
        stopRequested.wait()
    }

    /// Stops the router, the nodes (cleanly: their leases released) and
    /// PostgreSQL, and removes a temporary folder.
    func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        router.stop()
        let processes = slots.withLock { $0.compactMap(\.process) }
        let group = DispatchGroup()
        for process in processes {
            DispatchQueue.global().async(group: group) { process.terminate() }
        }
        group.wait()
        postgres.stop()
        if removeFolder { try? FileManager.default.removeItem(atPath: folder) }
        report.say("stopped", [:], text: "stopped")
    }
}
