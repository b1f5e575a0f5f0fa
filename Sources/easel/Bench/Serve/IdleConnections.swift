import Foundation

/// What an idle connection costs the server: resident memory with
/// `connections` clients joined and saying nothing, less the memory with
/// one, divided among them. With `documents` above 1 they are spread over
/// that many documents, each a room: what a connection and its share of a
/// room cost.
struct IdleConnections {
    var connections: Int
    var documents = 1
    /// Time for the server to settle before each reading.
    var settle = 1.0

    struct Sample {
        var bytesEach: Double
        var residentBefore: Int
        var residentAfter: Int
    }

    /// Joined to `document` when given (an Easel client's hello and
    /// welcome); otherwise only connected (the relay has no documents).
    func run(port: Int, server: ServedProcess, document: String?) throws -> Sample {
        let first = try LoadSocket(port: port, subprotocol: document == nil ? nil : "easel.v1", bufferBytes: 4096)
        if let document { try LoadProtocol.join([first], document: document, firstReplica: 0xE000) }
        Thread.sleep(forTimeInterval: settle)
        let before = server.residentBytes
        let others = try (0..<connections).map { _ in
            try LoadSocket(port: port, subprotocol: document == nil ? nil : "easel.v1", bufferBytes: 4096)
        }
        if let document {
            let documents = documents
            try LoadProtocol.join(
                others, documents: { documents > 1 ? "\(document)-\($0 % documents)" : document }, firstReplica: 0xE001)
        }
        Thread.sleep(forTimeInterval: settle)
        let after = server.residentBytes
        withExtendedLifetime((first, others)) {}
        return Sample(
            bytesEach: Double(after - before) / Double(connections), residentBefore: before, residentAfter: after)
    }
}
