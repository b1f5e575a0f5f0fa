import EaselLocking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of its own, in a folder: Debian's server binaries,
/// `initdb` once per process into a template that each server copies, then
/// `postgres` on a free loopback port with its socket in the folder. For
/// `easel cluster` and the tests; stopped by `stop()`, and its folder removed.
///
/// `initdb` and `postgres` refuse to run as root: as root, both run as the
/// `postgres` user (Debian's packages make it), and the folder is theirs.
public final class LocalPostgres: Sendable {
    public let folder: String
    public let port: Int
    private let server: Process
    private let keepFolder: Bool

    /// Where to reach it, as libpq takes it.
    public var url: String { "postgres://easel@127.0.0.1:\(port)/easel" }

    /// Starts a server in `folder`, kept after it stops (its data reused
    /// if it is there), or in a new temporary folder removed after; on
    /// `port`, or a free one; and waits until it takes connections.
    public init(folder given: String? = nil, port: Int? = nil) throws {
        let binaries = try Self.binaries()
        let folder = try given ?? Self.temporaryFolder()
        keepFolder = given != nil
        self.folder = folder
        let data = folder + "/data"
        if !FileManager.default.fileExists(atPath: data) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Self.run("/bin/cp", ["-a", try Self.template(binaries: binaries), data])
        }
        try Self.ownByServer(folder)
        self.port = try port ?? Self.freePort()
        server = Process()
        server.executableURL = URL(fileURLWithPath: Self.asServerUser ? "/usr/bin/setpriv" : binaries + "/postgres")
        server.arguments =
            (Self.asServerUser ? Self.serverUserPrefix + [binaries + "/postgres"] : []) + [
                "-D", data, "-p", "\(self.port)", "-k", folder, "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=300", "-c", "shared_buffers=128MB",
            ]
        let log = folder + "/postgres.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle(forWritingAtPath: log)
        try server.run()
        try waitUntilReady(log: log)
    }

    /// Stops the server (a fast shutdown: sessions ended, everything
    /// committed kept) and removes its folder.
    public func stop() {
        if server.isRunning {
            kill(server.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(15)
            while server.isRunning && Date() < deadline { usleep(20_000) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
        if !keepFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    deinit {
        if server.isRunning { kill(server.processIdentifier, SIGKILL) }
    }

    private func waitUntilReady(log: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard server.isRunning else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw LocalPostgresError("postgres exited at start: \(said.suffix(2_000))")
            }
            if (try? PostgresConnection(url: url)) != nil { return }
            usleep(50_000)
        }
        stop()
        throw LocalPostgresError("postgres did not take connections within 30 s")
    }

    // MARK: The template

    private static let templateFolder = Locked<String?>(nil)

    /// A cluster made by `initdb` with an `easel` role and database, made
    /// once and kept in the temporary folder for every later process of
    /// this user (initdb takes seconds); servers start from copies of it.
    private static func template(binaries: String) throws -> String {
        try templateFolder.withLock { known throws -> String in
            if let known { return known }
            let version = URL(fileURLWithPath: binaries).deletingLastPathComponent().lastPathComponent
            let kept = NSTemporaryDirectory() + "easel-postgres-template-\(geteuid())-\(version)"
            let data = kept + "/data"
            if !FileManager.default.fileExists(atPath: data + "/PG_VERSION") {
                let made = try makeTemplate(binaries: binaries)
                // Another process may have kept one meanwhile: then that one is used.
                if rename(made, kept) != 0 { try? FileManager.default.removeItem(atPath: made) }
            }
            known = data
            return data
        }
    }

    private static func makeTemplate(binaries: String) throws -> String {
        let folder = try temporaryFolder()
        try ownByServer(folder)
        let data = folder + "/data"
        try run(
            asServerUser ? "/usr/bin/setpriv" : binaries + "/initdb",
            (asServerUser ? serverUserPrefix + [binaries + "/initdb"] : []) + [
                "-D", data, "-U", "easel", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
                "--no-instructions",
            ])
        // The database the nodes use, made once here, by a server started
        // for that alone.
        let port = try freePort()
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: asServerUser ? "/usr/bin/setpriv" : binaries + "/postgres")
        setup.arguments =
            (asServerUser ? serverUserPrefix + [binaries + "/postgres"] : []) + [
                "-D", data, "-p", "\(port)", "-k", folder, "-c", "listen_addresses=127.0.0.1",
            ]
        setup.standardError = FileHandle.nullDevice
        setup.standardOutput = FileHandle.nullDevice
        try setup.run()
        defer {
            kill(setup.processIdentifier, SIGINT)
            setup.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(30)
        var connection: PostgresConnection?
        while connection == nil && Date() < deadline && setup.isRunning {
            connection = try? PostgresConnection(url: "postgres://easel@127.0.0.1:\(port)/postgres")
            if connection == nil { usleep(50_000) }
        }
        guard let connection else { throw LocalPostgresError("the template's postgres did not start") }
        try connection.execute("CREATE DATABASE easel")
        return folder
    }

    // MARK: Processes

    /// Whether the server's programs must run as the `postgres` user.
    private static var asServerUser: Bool { geteuid() == 0 }

    /// `setpriv`'s arguments that run what follows as `postgres`.
    private static let serverUserPrefix = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--"]

    /// The newest PostgreSQL under /usr/lib/postgresql, or EASEL_POSTGRES_BIN.
    static func binaries() throws -> String {
        if let given = ProcessInfo.processInfo.environment["EASEL_POSTGRES_BIN"] { return given }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed()
        where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw LocalPostgresError(
            "no PostgreSQL server binaries under \(root): install Debian's postgresql package, "
                + "or name their folder in EASEL_POSTGRES_BIN")
    }

    private static func temporaryFolder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/easel-postgres-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw LocalPostgresError("cannot make a temporary folder") }
        return String(cString: made)
    }

    /// As root, gives the folder to `postgres`, and opens /tmp's path to it.
    private static func ownByServer(_ folder: String) throws {
        guard asServerUser else { return }
        try run("/bin/chown", ["-R", "postgres:postgres", folder])
        chmod(folder, 0o700)
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LocalPostgresError(
                "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: said, as: UTF8.self))")
        }
    }

    /// A port nothing listens on now (the system's choice for port 0).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LocalPostgresError("cannot open a socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw LocalPostgresError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct LocalPostgresError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
