import EaselModel

/// Ops a client made, to be committed all together or not at all.
public struct Push: Hashable, Sendable {
    /// Chosen by the client; the ack or error names it.
    public var batch: UInt64
    public var ops: [Op]

    public init(batch: UInt64, ops: [Op]) {
        self.batch = batch
        self.ops = ops
    }
}

/// A push is durable. Its newly committed ops (resent duplicates skipped)
/// got positions `first ..< first + count`, in push order.
public struct Ack: Hashable, Sendable {
    public var batch: UInt64
    public var first: UInt64
    public var count: UInt32

    public init(batch: UInt64, first: UInt64, count: UInt32) {
        self.batch = batch
        self.first = first
        self.count = count
    }
}

/// Something was refused; `fatal` means the sender closes the connection.
public struct ErrorMessage: Hashable, Sendable {
    public var code: ErrorCode
    public var fatal: Bool
    /// The push refused, when the error is about one.
    public var batch: UInt64?
    public var message: String

    public init(code: ErrorCode, fatal: Bool = false, batch: UInt64? = nil, message: String) {
        self.code = code
        self.fatal = fatal
        self.batch = batch
        self.message = message
    }
}

extension Push {
    /// A push's positions lie within the canvas (`Op.validatePositions()`,
    /// 108 beyond): only pushes, so what a server stored before the bound
    /// still loads and still reaches its clients.
    static func validatePositions(of ops: [Op]) throws(DecodeError) {
        for (index, op) in ops.enumerated() {
            do {
                try op.validatePositions()
            } catch {
                throw DecodeError(.invalidValue, "op \(index) (\(op.id)): \(error.description)")
            }
        }
    }
}
