import EaselModel
import EaselProtocol
import Foundation

/// poll() over load sockets: the one thread every load scenario runs on.
struct LoadLoop {
    let sockets: [LoadSocket]
    private var descriptors: [pollfd]

    init(_ sockets: [LoadSocket]) {
        self.sockets = sockets
        descriptors = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    }

    /// Waits up to `milliseconds` and calls `readable` with the index of
    /// every socket that has something to read (or was closed); flushes
    /// sockets with queued output.
    mutating func poll(milliseconds: Int32, _ readable: (Int) throws -> Void) throws {
        for index in descriptors.indices {
            descriptors[index].events = Int16(POLLIN) | (sockets[index].wantsToWrite ? Int16(POLLOUT) : 0)
        }
        let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        guard ready > 0 else { return }
        for index in descriptors.indices where descriptors[index].revents != 0 {
            if descriptors[index].revents & Int16(POLLOUT) != 0 { sockets[index].flush() }
            if descriptors[index].revents & ~Int16(POLLOUT) != 0 { try readable(index) }
        }
    }
}

/// What the load clients need of the Easel protocol, kept cheap: readers
/// count ops without decoding them.
enum LoadProtocol {
    static func hello(document: String, replica: UInt64) throws -> [UInt8] {
        let name = try DocumentName(document)
        let user = UserInfo(name: "bench \(replica)", initials: "B", color: .black)
        return Message.hello(Hello(document: name, replica: ReplicaID(rawValue: replica), user: user)).binaryEncoded()
    }

    /// The message's type tag, or nil for something too short to be one.
    static func tag(of message: UnsafeRawBufferPointer) -> UInt8? {
        message.count >= 2 ? message[1] : nil
    }

    /// How many ops an `ops` message carries, read from its op batch's
    /// header (Protocol/README.md 4.3): skip the replica and entity tables,
    /// read the op count. 0 for any other message.
    static func opCount(of message: UnsafeRawBufferPointer) -> Int {
        guard tag(of: message) == MessageType.ops.rawValue else { return 0 }
        var reader = BatchReader(message)
        reader.skipTables()
        return Int(reader.varint())
    }

    /// Sends every socket's hello and waits until each has its welcome.
    static func join(_ sockets: [LoadSocket], document: String, firstReplica: UInt64) throws {
        try join(sockets, documents: { _ in document }, firstReplica: firstReplica)
    }

    /// Joins socket `index` to `documents(index)`, and waits for every welcome.
    static func join(_ sockets: [LoadSocket], documents: (Int) -> String, firstReplica: UInt64) throws {
        for (index, socket) in sockets.enumerated() {
            socket.send(try hello(document: documents(index), replica: firstReplica + UInt64(index)))
        }
        var welcomed = Set<Int>()
        var loop = LoadLoop(sockets)
        let deadline = Date().addingTimeInterval(60)
        while welcomed.count < sockets.count {
            guard Date() < deadline else { throw BenchError("only \(welcomed.count) of \(sockets.count) welcomed") }
            try loop.poll(milliseconds: 100) { index in
                let open = sockets[index].receive { message in
                    if tag(of: message) == MessageType.welcome.rawValue { welcomed.insert(index) }
                }
                guard open else { throw BenchError("the server closed a connection while it joined") }
            }
        }
    }
}

extension LoadProtocol {
    /// The IDs of an `ops` message's ops, read without decoding it, for a
    /// workload of property sets of x alone (the latency run's): replica
    /// and counter follow the op header's rules (Protocol/README.md 4.3);
    /// anything else ends the reading early.
    static func setOfXIDs(in message: UnsafeRawBufferPointer, _ found: (_ replica: UInt64, _ counter: UInt64) -> Void) {
        guard tag(of: message) == MessageType.ops.rawValue else { return }
        var reader = BatchReader(message)
        let replicas = reader.replicaTable()
        reader.skipEntityTable()
        var replica = 0
        var counter: UInt64 = 0
        for _ in 0..<reader.varint() {
            _ = reader.varint()  // the position's difference
            guard reader.offset < message.count else { return }
            let header = message[reader.offset]
            reader.offset += 1
            guard header & 0x07 == 2 else { return }  // a set
            if header & 0x08 != 0 { replica = Int(reader.varint()) }
            if header & 0x10 != 0 {
                let zigzag = reader.varint()
                counter = counter &+ (zigzag >> 1 ^ (0 &- (zigzag & 1)))
            } else {
                counter &+= 1
            }
            if (header >> 5) & 0x03 == 2 {
                _ = reader.varint()
                _ = reader.varint()
            }
            _ = reader.varint()  // the entity
            guard reader.offset + 5 <= message.count, message[reader.offset] == 1, replica < replicas.count else {
                return
            }
            reader.offset += 5  // the x field: tag 1, a float
            found(replicas[replica], counter)
        }
    }
}

/// Reads the start of an op batch (Protocol/README.md 4.3), after the
/// message's two header bytes; past the end it reads zeros.
private struct BatchReader {
    let message: UnsafeRawBufferPointer
    var offset = 2

    init(_ message: UnsafeRawBufferPointer) {
        self.message = message
    }

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < message.count, shift < 64 {
            let byte = message[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        return value
    }

    mutating func replicaTable() -> [UInt64] {
        var replicas: [UInt64] = []
        for _ in 0..<varint() {
            guard offset + 8 <= message.count else { break }
            replicas.append((0..<8).reduce(0) { $0 | UInt64(message[offset + $1]) << (8 * UInt64($1)) })
            offset += 8
        }
        return replicas
    }

    mutating func skipEntityTable() {
        for _ in 0..<varint() where offset < message.count {
            _ = varint()
            _ = varint()
        }
    }

    mutating func skipTables() {
        offset += 8 * Int(min(varint(), UInt64(message.count)))
        skipEntityTable()
    }
}
