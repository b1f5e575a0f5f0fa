import EaselModel
import EaselTestSupport
import Foundation

@testable import EaselProtocol

/// Protocol/vectors on disk. `EASEL_WRITE_VECTORS=1 swift test --filter
/// Vector` rewrites them from the catalogs; otherwise tests only read them.
enum VectorFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Protocol/vectors")

    /// Touched by every vector test first, so files are written once, before
    /// anyone reads them.
    static let prepared: Bool = {
        if environment("EASEL_WRITE_VECTORS") == "1" {
            do {
                try writeAll()
            } catch {
                fatalError("writing vectors failed: \(error)")
            }
        }
        return true
    }()

    static func read(_ relativePath: String) throws -> [UInt8] {
        _ = prepared
        return [UInt8](try Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    /// A .hex file's bytes, or a .json file's.
    static func message(_ relativePath: String) throws -> [UInt8] {
        let contents = try read(relativePath)
        return relativePath.hasSuffix(".hex") ? bytes(hex: String(decoding: contents, as: UTF8.self)) : contents
    }

    static func validPath(_ name: String, _ encoding: WireEncoding) -> String {
        "valid/\(name).\(encoding == .binary ? "hex" : "json")"
    }

    static func invalidPath(_ vector: InvalidVector) -> String {
        "invalid/\(vector.name).\(vector.encoding == .binary ? "hex" : "json")"
    }

    /// The state-hash fixture: its ops as an `ops` message, its canonical
    /// encoding, and its hash.
    static var stateHashOps: Message {
        .ops(HashFixture.ops.enumerated().map { PositionedOp(position: UInt64($0.offset + 1), op: $0.element) })
    }

    static func writeAll() throws {
        let manager = FileManager.default
        try? manager.removeItem(at: root)
        for folder in ["valid", "invalid", "state-hash"] {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var index = "{\n  \"protocol\": \(WireProtocol.version),\n  \"valid\": [\n"
        index += ValidVectors.all.map { name, message in
            try? write(hexFile(message.binaryEncoded()), to: validPath(name, .binary))
            try? write(message.jsonEncoded(), to: validPath(name, .json))
            return
                "    {\"name\": \"\(name)\", \"type\": \"\(message.type)\", \"binary\": \"\(validPath(name, .binary))\","
                + " \"json\": \"\(validPath(name, .json))\"}"
        }.joined(separator: ",\n")
        index += "\n  ],\n  \"invalid\": [\n"
        index += InvalidVectors.all.map { vector in
            let path = invalidPath(vector)
            try? write(vector.encoding == .binary ? hexFile(vector.bytes) : vector.bytes, to: path)
            return "    {\"name\": \"\(vector.name)\", \"encoding\": \"\(vector.encoding)\", \"file\": \"\(path)\","
                + " \"code\": \(vector.code.rawValue), \"error\": \"\(vector.code)\","
                + (vector.batch.map { " \"batch\": \"\($0)\"," } ?? "") + " \"why\": \(quoted(vector.why))}"
        }.joined(separator: ",\n")
        let document = Document(applying: HashFixture.ops)
        try write(hexFile(stateHashOps.binaryEncoded()), to: "state-hash/ops.hex")
        try write(stateHashOps.jsonEncoded(), to: "state-hash/ops.json")
        try write(hexFile(document.canonicalEncoding), to: "state-hash/canonical.hex")
        index += """

              ],
              "stateHash": {"ops": {"binary": "state-hash/ops.hex", "json": "state-hash/ops.json"},\
             "canonical": "state-hash/canonical.hex", "xxh64": "\(document.stateHash.hex)",\
             "emojiKey": "\(document.stateHash.emojiKey)"}
            }

            """
        try write(Array(index.utf8), to: "index.json")
    }

    private static func quoted(_ text: String) -> String {
        var json = JSONWriter()
        json.string(text)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private static func write(_ bytes: [UInt8], to relativePath: String) throws {
        try Data(bytes).write(to: root.appendingPathComponent(relativePath))
    }

    /// 32 bytes a line, so diffs of the golden files stay readable.
    private static func hexFile(_ bytes: [UInt8]) -> [UInt8] {
        let lines = stride(from: 0, to: bytes.count, by: 32).map { start in
            hex(Array(bytes[start..<min(start + 32, bytes.count)]))
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }
}
