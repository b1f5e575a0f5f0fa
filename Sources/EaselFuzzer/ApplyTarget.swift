import EaselModel
import EaselProtocol

extension FuzzTarget {
    /// The server's boundary: a decoded op is checked against the document
    /// (`Document.validate`, as a room does before it stores a push) and
    /// only then applied. The CRDT's laws must hold for whatever gets
    /// through, not just for what an editor makes.
    static let apply = FuzzTarget(
        name: "apply",
        property: """
            ops of any decoded message (binary or JSON) that pass the document's validation apply \
            without a refusal, apply again without a change, and give the same state applied in reverse order
            """,
        check: { input in
            let message =
                (try? Message(binary: input)) ?? (input.first == UInt8(ascii: "{") ? try? Message(json: input) : nil)
            guard let message else { return }
            var document = Document()
            var accepted: [Op] = []
            for op in ops(of: message) {
                guard (try? document.validate(op)) != nil else { continue }
                if case .refused(let error) = document.apply(op) {
                    preconditionFailure("validated, then refused by apply (\(error)): \(op)")
                }
                accepted.append(op)
            }
            let state = document.canonicalEncoding
            for op in accepted { document.apply(op) }
            precondition(document.canonicalEncoding == state, "applying accepted ops a second time changed the state")
            var reversed = Document()
            for op in accepted.reversed() { reversed.apply(op) }
            precondition(reversed.canonicalEncoding == state, "the accepted ops in reverse order gave another state")
        },
        seeds: { sources in
            try Vectors.messages(in: sources.vectors, ending: ".hex") + Vectors.messages(in: sources.vectors, ending: ".json")
        })

    private static func ops(of message: Message) -> [Op] {
        switch message {
        case .push(let push): push.ops
        case .ops(let positioned): positioned.map(\.op)
        case .welcome(let welcome):
            switch welcome.content {
            case .snapshot(let ops): ops
            case .tail(let positioned): positioned.map(\.op)
            }
        default: []
        }
    }
}
