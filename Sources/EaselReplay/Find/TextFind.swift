import EaselModel
import EaselProtocol

/// `--find 'typed TEXT'` and `--find 'deleted TEXT'`: where a piece of text
/// stands in a text entity (or stood, deleted), and who typed and who
/// deleted its characters, op by op. Characters keep their IDs, deleted or
/// not, so the answer comes from the document at one position and the ops
/// that named those IDs, not from diffing strings.
public struct TextFind: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Characters that read so now.
        case typed
        /// Deleted characters that read so among the deleted ones.
        case deleted
    }

    public var kind: Kind
    public var needle: [Unicode.Scalar]

    /// Reads `typed TEXT` or `deleted TEXT` (the text is the rest of the
    /// line, in double quotes or not); nil for any other predicate.
    public init?(parsing line: String) throws(ReplayError) {
        let trimmed = line.drop { $0.isWhitespace }
        let word = trimmed.prefix { !$0.isWhitespace }
        guard let kind = Kind(rawValue: String(word)) else { return nil }
        var text = String(trimmed.dropFirst(word.count).drop { $0.isWhitespace })
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty else { throw ReplayError("\(kind.rawValue) needs the text to look for, e.g. \(kind.rawValue) \"from Ann\"") }
        self.kind = kind
        needle = Array(text.unicodeScalars)
    }

    public var description: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: needle)
        return "\(kind.rawValue) \(String(view).debugDescription)"
    }
}

/// One place a `TextFind` found its text: the text entity, where the
/// characters stand among its visible (typed) or deleted ones, and who
/// typed and deleted them, one part per op.
public struct TextFinding: Hashable, Sendable {
    public struct Part: Hashable, Sendable {
        public var text: String
        /// The op that typed these characters (a create or a set of the
        /// whole string types them too); nil when it came before the
        /// history's first op (a base snapshot's).
        public var typed: Origin?
        /// The op that deleted them, first in the log; nil when none did.
        public var deleted: Origin?
    }

    public struct Origin: Hashable, Sendable {
        public var position: UInt64
        public var author: String
        public var replica: ReplicaID
    }

    public var text: EntityID
    /// The first character's index among the visible (typed) or deleted
    /// characters of the text.
    public var index: Int
    public var parts: [Part]
}

extension TextFind {
    /// Every place the text is found in `document` (the history's state at
    /// a position), at most `limit`, with the ops up to that position.
    public func findings(in document: Document, ops: [LoggedOp], limit: Int = 20) -> [TextFinding] {
        let origins = OriginIndex(ops)
        var findings: [TextFinding] = []
        for entity in document.knownEntities where document.kind(of: entity) == .text {
            var ids: [OpID] = []
            var scalars: [Unicode.Scalar] = []
            for run in document.textSequenceForEditing(of: entity).runs where run.isDeleted == (kind == .deleted) {
                for (offset, scalar) in run.insert.scalars.enumerated() {
                    ids.append(run.insert.id.advanced(by: offset))
                    scalars.append(scalar)
                }
            }
            var start = 0
            while start + needle.count <= scalars.count, findings.count < limit {
                if scalars[start..<start + needle.count].elementsEqual(needle) {
                    let matched = ids[start..<start + needle.count]
                    findings.append(
                        TextFinding(text: entity, index: start, parts: parts(matched, scalars[start...], origins)))
                    start += needle.count
                } else {
                    start += 1
                }
            }
        }
        return findings
    }

    /// The matched characters in runs of the same typing and deleting ops.
    private func parts(
        _ ids: ArraySlice<OpID>, _ scalars: ArraySlice<Unicode.Scalar>, _ origins: OriginIndex
    ) -> [TextFinding.Part] {
        var parts: [TextFinding.Part] = []
        var view = String.UnicodeScalarView()
        var current: (typed: TextFinding.Origin?, deleted: TextFinding.Origin?)?
        for (id, scalar) in zip(ids, scalars) {
            let these = (origins.typing(id), origins.deleting(id))
            if let shown = current, shown.typed != these.0 || shown.deleted != these.1 {
                parts.append(TextFinding.Part(text: String(view), typed: shown.typed, deleted: shown.deleted))
                view = String.UnicodeScalarView()
            }
            current = these
            view.append(scalar)
        }
        if let shown = current { parts.append(TextFinding.Part(text: String(view), typed: shown.typed, deleted: shown.deleted)) }
        return parts
    }
}

/// Which logged op typed a character (its ID lies in the op's counters:
/// an insert's one a character, a text written whole's one a scalar) and
/// which first deleted it.
private struct OriginIndex {
    /// Per replica, ops that reserve counters, by first counter.
    private var typing: [ReplicaID: [(first: UInt64, last: UInt64, origin: TextFinding.Origin)]] = [:]
    private var deletes: [(runs: [CharacterRun], origin: TextFinding.Origin)] = []

    init(_ ops: [LoggedOp]) {
        for logged in ops {
            let origin = TextFinding.Origin(
                position: logged.position, author: logged.author, replica: logged.op.id.replica)
            switch logged.op.action {
            case .insertText, .create, .set:
                typing[logged.op.id.replica, default: []].append((logged.op.id.counter, logged.op.lastCounter, origin))
            case .deleteText(_, let runs):
                deletes.append((runs, origin))
            default:
                break
            }
        }
        for replica in typing.keys { typing[replica]?.sort { $0.first < $1.first } }
    }

    func typing(_ id: OpID) -> TextFinding.Origin? {
        guard let ops = typing[id.replica] else { return nil }
        // The last op starting at or before the counter.
        var low = 0
        var high = ops.count
        while low < high {
            let middle = (low + high) / 2
            if ops[middle].first <= id.counter { low = middle + 1 } else { high = middle }
        }
        guard low > 0, ops[low - 1].last >= id.counter else { return nil }
        return ops[low - 1].origin
    }

    func deleting(_ id: OpID) -> TextFinding.Origin? {
        deletes.first { entry in
            entry.runs.contains { run in
                run.first.replica == id.replica && id.counter >= run.first.counter
                    && id.counter - run.first.counter < UInt64(run.count)
            }
        }?.origin
    }
}
