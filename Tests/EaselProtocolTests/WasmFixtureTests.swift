import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

/// Op logs of seeded multi-editor sessions with the state hash native Swift
/// gives them, in `Web/tests/fixtures/convergence.json`. The WebAssembly
/// module's Node tests apply the same ops in shuffled orders and must reach
/// the same hashes. `EASEL_WRITE_VECTORS=1 swift test --filter WasmFixture`
/// rewrites the file; otherwise this test checks that it still hashes as
/// native Swift does.
@Suite("WebAssembly convergence fixtures")
struct WasmFixtureTests {
    static let file = VectorFiles.root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Web/tests/fixtures/convergence.json")
    static let seeds: [UInt64] = Array(1...12)

    struct Fixture {
        var seed: UInt64
        var hash: String
        /// One `ops` message (binary, hex) per op, in log order.
        var messages: [String]
    }

    @Test("every fixture's ops, applied natively in log order and in reverse, give the hash the fixture states")
    func theFixturesHashAsNativeSwiftDoes() throws {
        if environment("EASEL_WRITE_VECTORS") == "1" { try Self.write() }
        let fixtures = try Self.read()
        #expect(fixtures.map(\.seed) == Self.seeds)
        for fixture in fixtures {
            let ops = try fixture.messages.flatMap { text -> [Op] in
                guard case .ops(let positioned) = try Message(binary: bytes(hex: text)) else { return [] }
                return positioned.map(\.op)
            }
            #expect(ops.count == fixture.messages.count, "seed \(fixture.seed)")
            #expect(Document(applying: ops).stateHash.hex == fixture.hash, "seed \(fixture.seed)")
            #expect(Document(applying: ops.reversed()).stateHash.hex == fixture.hash, "seed \(fixture.seed)")
        }
    }

    static func read() throws -> [Fixture] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let entries = object?["fixtures"] as? [[String: Any]] ?? []
        return entries.compactMap { entry in
            guard let seed = (entry["seed"] as? String).flatMap({ UInt64($0) }), let hash = entry["hash"] as? String,
                let messages = entry["ops"] as? [String]
            else { return nil }
            return Fixture(seed: seed, hash: hash, messages: messages)
        }
    }

    /// Three editors take turns with seeded random gestures and commands,
    /// receiving each other's ops now and then.
    static func session(seed: UInt64) -> [Op] {
        var random = SeededRandom(seed: seed)
        var editors = (0..<3).map { _ in Editor(replica: ReplicaID(rawValue: random.next() | 1)) }
        var inboxes: [[Op]] = [[], [], []]
        var log: [Op] = []
        for _ in 0..<200 {
            let index = Int(random.next() % 3)
            if random.chance(0.3) {
                editors[index].receive(inboxes[index])
                inboxes[index] = []
                continue
            }
            guard let input = RandomEditing.next(for: editors[index], using: &random),
                let ops = try? editors[index].apply(input)
            else { continue }
            log += ops
            for other in editors.indices where other != index { inboxes[other] += ops }
        }
        return log
    }

    static func write() throws {
        var json = "{\"fixtures\": [\n"
        json += seeds.map { seed in
            let log = session(seed: seed)
            let messages = log.enumerated().map { offset, op in
                "\"" + hex(Message.ops([PositionedOp(position: UInt64(offset + 1), op: op)]).binaryEncoded()) + "\""
            }
            return "  {\"seed\": \"\(seed)\", \"hash\": \"\(Document(applying: log).stateHash.hex)\", \"ops\": ["
                + messages.joined(separator: ", ") + "]}"
        }.joined(separator: ",\n")
        json += "\n]}\n"
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(json.utf8).write(to: file)
    }
}
