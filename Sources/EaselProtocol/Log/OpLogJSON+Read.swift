import EaselModel

extension OpLogJSON {
    /// A whole log as read from its lines: import and replay both read logs
    /// through this, so they accept and refuse exactly the same files.
    public struct Log: Hashable, Sendable {
        public var header: Header
        public var snapshot: StateSnapshot?
        public var ops: [LoggedOp]

        /// The last position the log holds (0 for an empty document).
        public var head: UInt64 { ops.last?.position ?? snapshot?.position ?? 0 }
    }

    /// Why a log could not be read, with the line (counted from 1) at fault
    /// when one is.
    public struct ReadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int?
        public var message: String

        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }

    /// Reads a log: a header first, at most one snapshot before any op, and
    /// ops whose positions follow each other with no gap. Blank lines are
    /// skipped.
    public static func read(_ lines: some Sequence<String>) throws(ReadError) -> Log {
        var header: Header?
        var snapshot: StateSnapshot?
        var ops: [LoggedOp] = []
        for (index, text) in lines.enumerated() where !text.allSatisfy({ $0.isWhitespace }) {
            let number = index + 1
            let line: Line
            do throws(DecodeError) {
                line = try decode(text)
            } catch {
                throw ReadError(line: number, message: "\(error)")
            }
            switch line {
            case .header(let read):
                guard header == nil else { throw ReadError(line: number, message: "a second header") }
                header = read
            case .snapshot(let read):
                guard header != nil, ops.isEmpty, snapshot == nil else {
                    throw ReadError(line: number, message: "a snapshot must lead the ops")
                }
                snapshot = read
            case .op(let read):
                guard header != nil else { throw ReadError(line: number, message: "ops before the header") }
                let expected = (ops.last?.position ?? snapshot?.position ?? 0) + 1
                guard read.position == expected else {
                    throw ReadError(line: number, message: "position \(read.position) where \(expected) belongs")
                }
                ops.append(read)
            }
        }
        guard let header else { throw ReadError(line: nil, message: "the log has no header line") }
        return Log(header: header, snapshot: snapshot, ops: ops)
    }
}
