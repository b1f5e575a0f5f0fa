import ArgumentParser
import AsyncHTTPClient
import EaselClient
import EaselLocking
import EaselModel
import Foundation
import NIOCore
import Synchronization

/// Blob transfer through `easel serve` against a bare static file server
/// (nginx, PUT by its WebDAV module) on the same machine in the same run,
/// with one HTTP client for both; and what uploads cost the collaboration's
/// push latency.
struct BenchBlobs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blobs",
        abstract: "Upload and download MB/s of `easel serve` against nginx, and push latency while uploads run.",
        discussion: """
            Transfer: --count blobs of --size bytes (incompressible, a PNG's signature first) uploaded then \
            downloaded, --concurrency at a time, through each server, --runs times; medians and ratios. \
            Latency: --writers clients pushing --rate sets a second for --latency-seconds, without uploads \
            and then while --concurrency uploaders upload without pause. Needs nginx (Debian: apt-get install \
            nginx); databases and files go to a temporary folder.
            """)

    @Option(help: "Runs of each measurement; medians are reported.") var runs = 3
    @Option(help: "Blobs a run uploads and downloads.") var count = 24
    @Option(help: "Bytes a blob.") var size = 10 << 20
    @Option(help: "Transfers at a time.") var concurrency = 4
    @Option(help: "The nginx executable.") var nginx = "/usr/sbin/nginx"
    @Option(help: "Writers in the latency runs.") var writers = 100
    @Option(help: "Pushes a second by each writer.") var rate = 30.0
    @Option(help: "Seconds of each latency run.") var latencySeconds = 10.0

    func run() throws {
        _ = try measure()
    }

    /// The measurements, reported as they come; their rows for `easel bench
    /// all`.
    func measure() throws -> [BenchRow] {
        guard FileManager.default.isExecutableFile(atPath: nginx) else {
            throw BenchError("no nginx at \(nginx) (Debian: apt-get install nginx), or give --nginx")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { try? client.syncShutdown() }

        report("transfer: \(count) blobs of \(size >> 20) MiB, \(concurrency) at a time, median of \(runs)")
        var easel: [Transfer] = []
        var reference: [Transfer] = []
        for run in 0..<runs {
            let blobs = (0..<count).map { Blob(seed: UInt64(run * count + $0), size: size) }
            let server = try ServedProcess([
                "serve", "--port", "0", "--log-level", "warning", "--db",
                folder.appendingPathComponent("transfer-\(run).db").path,
                "--max-blob-bytes", String(size), "--max-uploads", String(max(concurrency, 8)),
            ])
            let easelPort = server.port
            easel.append(
                try transfer(blobs, client: client) { "http://127.0.0.1:\(easelPort)/blobs/\($0.hex)?doc=bench/blobs" })
            server.stop()
            let files = folder.appendingPathComponent("nginx-\(run)")
            let web = try NginxProcess(executable: nginx, folder: files)
            let nginxPort = web.port
            reference.append(try transfer(blobs, client: client) { "http://127.0.0.1:\(nginxPort)/blobs/\($0.hex)" })
            web.stop()
            report(
                String(
                    format: "  run %d: easel up %.0f MB/s, down %.0f MB/s; nginx up %.0f MB/s, down %.0f MB/s", run + 1,
                    easel[run].upload, easel[run].download, reference[run].upload, reference[run].download))
        }
        let (up, down) = (median(easel.map(\.upload)), median(easel.map(\.download)))
        let (nginxUp, nginxDown) = (median(reference.map(\.upload)), median(reference.map(\.download)))
        report(String(format: "  upload:   easel %.0f MB/s, nginx %.0f MB/s: %.2fx", up, nginxUp, up / nginxUp))
        report(String(format: "  download: easel %.0f MB/s, nginx %.0f MB/s: %.2fx", down, nginxDown, down / nginxDown))

        report(
            "latency: \(writers) writers x \(rate) pushes/s, \(latencySeconds) s a run, without and with \(concurrency) uploaders, median of \(runs)"
        )
        // Made before the runs: making and hashing them meanwhile would take
        // the CPU the server and the writers need.
        let pool = (0..<Int(latencySeconds * 16)).map { Blob(seed: 1_000_000 + UInt64($0), size: size) }
        var quiet: [Double] = []
        var busy: [Double] = []
        var uploaded: [Double] = []
        for run in 0..<runs {
            let server = try ServedProcess([
                "serve", "--port", "0", "--log-level", "warning", "--db",
                folder.appendingPathComponent("latency-\(run).db").path,
                "--max-blob-bytes", String(size),
            ])
            let latency = PushLatency(writers: writers, rate: rate, seconds: latencySeconds)
            quiet.append(
                percentile(
                    try latency.run(port: server.port, server: server, document: "bench/quiet").receiptMilliseconds, 99)
            )
            let uploads = Uploaders(client: client, port: server.port, blobs: pool, concurrency: concurrency)
            let sample = try latency.run(port: server.port, server: server, document: "bench/busy")
            let megabytes = uploads.stop()
            busy.append(percentile(sample.receiptMilliseconds, 99))
            uploaded.append(megabytes / latencySeconds)
            server.stop()
            report(
                String(
                    format: "  run %d: push to receipt p99 %.2f ms without uploads, %.2f ms with (%.0f MB/s uploaded)",
                    run + 1, quiet[run], busy[run], uploaded[run]))
        }
        report(
            String(
                format: "  push to receipt p99: %.2f ms without uploads, %.2f ms while %.0f MB/s upload: %.2fx",
                median(quiet), median(busy), median(uploaded), median(busy) / median(quiet)))
        let blobs = "\(count) x \(size >> 20) MiB, \(concurrency) at a time"
        return [
            BenchRow(
                workload: "blobs", metric: "upload, \(blobs)", unit: "MB/s", easel: easel.map(\.upload),
                peer: "nginx", peerValues: reference.map(\.upload), higherIsBetter: true),
            BenchRow(
                workload: "blobs", metric: "download, \(blobs)", unit: "MB/s", easel: easel.map(\.download),
                peer: "nginx", peerValues: reference.map(\.download), higherIsBetter: true),
            BenchRow(
                workload: "blobs", metric: "push to receipt p99 while uploading", unit: "ms", easel: busy,
                peer: "no uploads", peerValues: quiet, higherIsBetter: false),
        ]
    }

    struct Transfer {
        var upload: Double
        var download: Double
    }

    /// Uploads every blob, then downloads every blob (checking its length),
    /// `concurrency` at a time; MB/s each way.
    private func transfer(_ blobs: [Blob], client: HTTPClient, url: @escaping @Sendable (Blob) -> String) throws
        -> Transfer
    {
        let megabytes = Double(blobs.count * size) / 1e6
        let concurrency = self.concurrency
        let upload = try timed {
            try await forEach(blobs, concurrency: concurrency) { blob in
                var request = HTTPClientRequest(url: url(blob))
                request.method = .PUT
                request.body = .bytes(ByteBuffer(bytes: blob.bytes))
                let response = try await client.execute(request, timeout: .seconds(120))
                guard (200..<300).contains(Int(response.status.code)) else {
                    throw BenchError("PUT \(url(blob)): \(response.status)")
                }
            }
        }
        let download = try timed {
            try await forEach(blobs, concurrency: concurrency) { blob in
                let response = try await client.execute(HTTPClientRequest(url: url(blob)), timeout: .seconds(120))
                guard response.status == .ok else { throw BenchError("GET \(url(blob)): \(response.status)") }
                var received = 0
                for try await chunk in response.body { received += chunk.readableBytes }
                guard received == blob.bytes.count else { throw BenchError("GET \(url(blob)): \(received) bytes") }
            }
        }
        return Transfer(upload: megabytes / upload, download: megabytes / download)
    }
}

/// Incompressible bytes behind a PNG signature (Easel takes images only),
/// and their SHA-256, Easel's name for them.
struct Blob: Sendable {
    let bytes: [UInt8]
    let hex: String

    init(seed: UInt64, size: Int) {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes.reserveCapacity(size)
        while bytes.count < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            withUnsafeBytes(of: state.byteSwapped) { bytes += $0.prefix(size - bytes.count) }
        }
        self.bytes = bytes
        hex = BlobHash(digesting: bytes).hex
    }
}

/// Uploaders that upload the blobs of a pool without pause until stopped,
/// each blob once while the pool lasts (a new database each run).
final class Uploaders: Sendable {
    private let running = Atomic(true)
    private let next = Atomic(0)
    private let bytes = Atomic(0)
    private let finished = DispatchSemaphore(value: 0)
    private let workers: Int

    init(client: HTTPClient, port: Int, blobs: [Blob], concurrency: Int) {
        workers = concurrency
        for _ in 0..<concurrency {
            Task { [self] in
                while running.load(ordering: .relaxed) {
                    let blob = blobs[next.add(1, ordering: .relaxed).oldValue % blobs.count]
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/blobs/\(blob.hex)?doc=bench/busy")
                    request.method = .PUT
                    request.body = .bytes(ByteBuffer(bytes: blob.bytes))
                    if let response = try? await client.execute(request, timeout: .seconds(120)),
                        (200..<300).contains(Int(response.status.code))
                    {
                        bytes.add(blob.bytes.count, ordering: .relaxed)
                    }
                }
                finished.signal()
            }
        }
    }

    /// Stops them, waits for the uploads in flight; the MB uploaded.
    func stop() -> Double {
        running.store(false, ordering: .relaxed)
        for _ in 0..<workers { finished.wait() }
        return Double(bytes.load(ordering: .relaxed)) / 1e6
    }
}

/// nginx serving one folder, taking PUTs into it, on a free port, as a
/// child process stopped when done.
final class NginxProcess {
    private let process = Process()
    let port: Int

    init(executable: String, folder: URL) throws {
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("root/blobs"), withIntermediateDirectories: true)
        port = try freePort()
        // Run as root, nginx's worker would be nobody, who cannot write here.
        let user = getuid() == 0 ? "user root;" : ""
        let configuration = """
            \(user) daemon off; worker_processes 1; pid \(folder.path)/nginx.pid; error_log \(folder.path)/error.log;
            events { worker_connections 1024; }
            http {
                access_log off; sendfile on; client_max_body_size 64m; client_body_buffer_size 1m;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy; fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi; scgi_temp_path \(folder.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(folder.path)/root;
                    location /blobs/ { dav_methods PUT; create_full_put_path on; }
                }
            }
            """
        let file = folder.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", file.path, "-p", folder.path, "-e", "\(folder.path)/error.log"]
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? connectable(port)) == true { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        throw BenchError("nginx did not start: \(log)")
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

private func freePort() throws -> Int {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
        }
    }
    guard bound else { throw BenchError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

private func connectable(_ port: Int) throws -> Bool {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// Runs `body`, waiting on this thread; its wall time in seconds.
private func timed(_ body: @escaping @Sendable () async throws -> Void) throws -> Double {
    let outcome = Locked<Result<Double, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let start = ContinuousClock.now
        do {
            try await body()
            let elapsed = ContinuousClock.now - start
            outcome.withLock {
                $0 = .success(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { throw BenchError("a timed run ended without a result") }
    return try result.get()
}

/// `body` for every element, at most `concurrency` at once.
private func forEach<T: Sendable>(
    _ elements: [T], concurrency: Int, _ body: @escaping @Sendable (T) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(concurrency, elements.count) {
            let element = elements[next]
            group.addTask { try await body(element) }
            next += 1
        }
        while try await group.next() != nil {
            if next < elements.count {
                let element = elements[next]
                group.addTask { try await body(element) }
                next += 1
            }
        }
    }
}
