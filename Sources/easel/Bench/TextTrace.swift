import EaselModel
import Foundation

/// One of josephg/editing-traces' sequential traces: a document typed by
/// one person, every keystroke a patch (a position in Unicode scalars,
/// how many to delete there, what to insert).
struct TextTrace {
    struct Patch {
        var position: Int
        var deleted: Int
        var inserted: [Unicode.Scalar]
    }

    var patches: [Patch] = []
    var endContent: String

    /// Reads the trace at `path`, JSON or gzipped JSON (through `gzip -dc`).
    init(path: String) throws {
        let data: Data
        if path.hasSuffix(".gz") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["gzip", "-dc", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw TraceError("gzip could not read \(path)") }
        } else {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let transactions = root["txns"] as? [[String: Any]], let end = root["endContent"] as? String
        else { throw TraceError("\(path) is not an editing trace (txns, endContent)") }
        guard (root["startContent"] as? String ?? "").isEmpty else {
            throw TraceError("\(path) starts with content; only traces that start empty are replayed")
        }
        endContent = end
        for transaction in transactions {
            for patch in transaction["patches"] as? [[Any]] ?? [] {
                guard patch.count == 3, let position = patch[0] as? Int, let deleted = patch[1] as? Int,
                    let inserted = patch[2] as? String
                else { throw TraceError("a patch is not [position, deleted, inserted]: \(patch)") }
                patches.append(Patch(position: position, deleted: deleted, inserted: Array(inserted.unicodeScalars)))
            }
        }
    }

    /// The trace typed into a text by one replica: the ops it sends.
    func replay(into text: inout TextSequence, replica: ReplicaID = ReplicaID(rawValue: 1)) -> [TextOp] {
        var ops: [TextOp] = []
        ops.reserveCapacity(patches.count)
        var counter: UInt64 = 1
        for patch in patches {
            if patch.deleted > 0 {
                ops.append(.delete(text.delete(patch.position..<patch.position + patch.deleted)))
            }
            if !patch.inserted.isEmpty {
                ops.append(
                    .insert(
                        text.insert(patch.inserted, at: patch.position, id: OpID(counter: counter, replica: replica))))
                counter += UInt64(patch.inserted.count)
            }
        }
        return ops
    }
}

struct TraceError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
