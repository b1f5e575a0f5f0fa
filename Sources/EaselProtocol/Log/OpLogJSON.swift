import EaselModel

/// The JSON Lines form of a document's op log (Docs/log-format.md): a header
/// line, a snapshot line when older ops were compacted away, then one line
/// per op. Ops are written as the JSON encoding writes them.
public enum OpLogJSON {
    public static let version = 1

    public struct Header: Hashable, Sendable {
        public var document: String
        public var epoch: Epoch

        public init(document: String, epoch: Epoch) {
            self.document = document
            self.epoch = epoch
        }
    }

    public enum Line: Hashable, Sendable {
        case header(Header)
        case snapshot(StateSnapshot)
        case op(LoggedOp)
    }

    public static func encode(_ line: Line) -> String {
        var json = JSONWriter()
        json.object { json in
            switch line {
            case .header(let header):
                json.member("log", "easel")
                json.key("version")
                json.integer(version)
                json.member("document", header.document)
                json.member("epoch", header.epoch.description)
            case .snapshot(let snapshot):
                json.key("snapshot")
                json.object { json in
                    json.member("position", String(snapshot.position))
                    json.key("highWater")
                    json.object { json in
                        for (replica, counter) in snapshot.highWater.sorted(by: { $0.key < $1.key }) {
                            json.member(replica.description, String(counter))
                        }
                    }
                    json.key("state")
                    json.array { json in for op in snapshot.state { json.op(op) } }
                }
            case .op(let line):
                json.member("position", String(line.position))
                json.member("replica", line.op.id.replica.description)
                json.member("counter", String(line.op.id.counter))
                json.member("author", line.author)
                json.key("receivedAt")
                json.integer(line.receivedAt)
                json.key("op")
                json.op(line.op)
            }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Reads one line. Lines longer than a protocol message are allowed
    /// (a snapshot of a big document is one line).
    public static func decode(_ text: String) throws(DecodeError) -> Line {
        let bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> JSONValue in try JSONParser.parse(buffer) }
        }
        return try decodeLine(JSONFields(parsed.get(), path: "line"))
    }

    private static func decodeLine(_ json: JSONFields) throws(DecodeError) -> Line {
        if json.has("log") {
            guard try json.string("log") == "easel" else { throw DecodeError(.invalidValue, "not an Easel log") }
            let version = try json.integer("version", as: Int.self)
            guard version == Self.version else {
                throw DecodeError(.unsupportedWireVersion, "log version \(version); this Easel reads version 1")
            }
            return .header(
                Header(
                    document: try json.string("document"),
                    epoch: Epoch(rawValue: try JSONConvert.hex64(json.string("epoch"), "line.epoch"))))
        }
        if let snapshot = try json.optionalFields("snapshot") {
            var highWater: [ReplicaID: UInt64] = [:]
            let counters = try snapshot.fields("highWater")
            for key in counters.keys {
                let replica = ReplicaID(rawValue: try JSONConvert.hex64(key, "\(counters.path) key"))
                highWater[replica] = try counters.uint64(key)
            }
            let state = try JSONOps.ops(snapshot.array("state"), path: "line.snapshot.state", limit: .max)
            return .snapshot(
                StateSnapshot(position: try snapshot.uint64("position"), state: state, highWater: highWater))
        }
        let op = try JSONOps.op(json.fields("op"), index: 0)
        guard try json.replica("replica") == op.id.replica, try json.uint64("counter") == op.id.counter else {
            throw DecodeError(.invalidValue, "the line's replica and counter differ from its op's id")
        }
        return .op(
            LoggedOp(
                position: try json.uint64("position"), op: op, author: try json.string("author"),
                receivedAt: try json.integer("receivedAt", as: Int64.self)))
    }
}
