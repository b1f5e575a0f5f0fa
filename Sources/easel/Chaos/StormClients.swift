import EaselLocking
import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// Light clients for a reconnect storm (`easel chaos cluster
/// --idle-clients`): each joins its document through the router and stays,
/// pinging as Easel's clients do; when its connection ends it connects again
/// after Easel's jittered reconnect backoff until it is welcomed again.
/// Several threads, each with a slice of the clients.
final class StormClients: Sendable {
    struct Report: Sendable {
        var clients = 0
        var joined = 0
        /// Seconds from a joined client's connection ending to its next
        /// welcome, for connections that ended after `since`.
        var rejoins: [Double] = []
        /// Clients whose connection ended after `since` and who are not
        /// back yet.
        var away = 0
        /// Refusals because a node was full (402): a node over its limits.
        var serverFull = 0
    }

    private struct Client {
        var document: String
        var replica: UInt64
        var socket: LoadSocket?
        var joined = false
        var failures = 0
        var retryAt = ContinuousClock.now
        var lastPing = ContinuousClock.now
        /// Its entry in the tally's endings, while it is away.
        var ending: Int?
    }

    private struct Tally {
        var joined = 0
        var ended: [(at: ContinuousClock.Instant, back: ContinuousClock.Instant?)] = []
        var serverFull = 0
    }

    private let count: Int
    private let documents: Int
    private let port: Int
    private let threads: Int
    private let tally = Locked(Tally())
    private let stopping = Locked(false)
    private let finished = DispatchGroup()

    init(count: Int, documents: Int, port: Int, threads: Int = 8) {
        self.count = count
        self.documents = max(1, documents)
        self.port = port
        self.threads = max(1, min(threads, count))
    }

    func start() {
        for slice in 0..<threads {
            finished.enter()
            Thread.detachNewThread { [self] in
                run(slice: slice)
                finished.leave()
            }
        }
    }

    /// Waits until every client is joined, or `timeout` passed: whether they are.
    func waitUntilJoined(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if tally.withLock({ $0.joined }) == count { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// What happened to the connections that ended after `since`.
    func report(since: ContinuousClock.Instant) -> Report {
        tally.withLock { tally in
            var report = Report(clients: count, joined: tally.joined, serverFull: tally.serverFull)
            for ended in tally.ended where ended.at >= since {
                if let back = ended.back { report.rejoins.append((back - ended.at).seconds) } else { report.away += 1 }
            }
            return report
        }
    }

    func stop() {
        stopping.withLock { $0 = true }
        finished.wait()
    }

    private func run(slice: Int) {
        var clients = stride(from: slice, to: count, by: threads).map { index in
            Client(document: "chaos/idle-\(index % documents)", replica: 0x5_0000_0000 + UInt64(index))
        }
        var nonce: UInt64 = 0
        while !stopping.withLock({ $0 }) {
            let now = ContinuousClock.now
            for index in clients.indices where clients[index].socket == nil && clients[index].retryAt <= now {
                connect(&clients[index])
            }
            for index in clients.indices where clients[index].joined && now - clients[index].lastPing >= .seconds(5) {
                nonce += 1
                clients[index].socket?.send(Message.ping(nonce: nonce).binaryEncoded())
                clients[index].lastPing = now
            }
            let open = clients.indices.filter { clients[$0].socket != nil }
            var descriptors = open.map { index in
                pollfd(
                    fd: clients[index].socket?.fd ?? -1,
                    events: Int16(POLLIN) | (clients[index].socket?.wantsToWrite == true ? Int16(POLLOUT) : 0),
                    revents: 0)
            }
            guard Glibc.poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else {
                if descriptors.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
                continue
            }
            for (slot, index) in open.enumerated() where descriptors[slot].revents != 0 {
                guard let socket = clients[index].socket else { continue }
                if descriptors[slot].revents & Int16(POLLOUT) != 0 { socket.flush() }
                var welcomed = false
                var full = 0
                let stillOpen = socket.receive { message in
                    switch LoadProtocol.tag(of: message) {
                    case MessageType.welcome.rawValue: welcomed = true
                    case MessageType.error.rawValue:
                        if case .error(let error)? = try? Message(binary: Array(message)), error.code == .serverFull {
                            full += 1
                        }
                    default: break
                    }
                }
                if welcomed, !clients[index].joined { joined(&clients[index]) }
                if full > 0 { tally.withLock { $0.serverFull += full } }
                if !stillOpen { ended(&clients[index]) }
            }
        }
        clients.removeAll()
    }

    private func connect(_ client: inout Client) {
        do {
            let socket = try LoadSocket(
                port: port, subprotocol: "easel.v1", path: "/d/\(client.document)", bufferBytes: 64 << 10,
                handshakeTimeoutSeconds: 2)
            socket.send(try LoadProtocol.hello(document: client.document, replica: client.replica))
            client.socket = socket
            client.lastPing = .now
        } catch {
            retryLater(&client)
        }
    }

    private func joined(_ client: inout Client) {
        client.joined = true
        client.failures = 0
        let ending = client.ending
        client.ending = nil
        tally.withLock { tally in
            tally.joined += 1
            if let ending { tally.ended[ending].back = .now }
        }
    }

    private func ended(_ client: inout Client) {
        client.socket = nil
        if client.joined {
            client.joined = false
            client.ending = tally.withLock { tally in
                tally.joined -= 1
                tally.ended.append((.now, nil))
                return tally.ended.count - 1
            }
        }
        retryLater(&client)
    }

    private func retryLater(_ client: inout Client) {
        client.failures += 1
        let delay = Backoff.reconnect.delay(afterFailures: client.failures) ?? .seconds(10)
        client.retryAt = .now + delay
    }
}
