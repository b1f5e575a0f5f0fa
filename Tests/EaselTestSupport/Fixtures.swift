import EaselModel

public let alice = ReplicaID(rawValue: 0xA11CE)
public let bob = ReplicaID(rawValue: 0xB0B0B)
public let carol = ReplicaID(rawValue: 0xCA201)

public func opID(_ counter: UInt64, _ replica: ReplicaID) -> OpID {
    OpID(counter: counter, replica: replica)
}

/// An op that is its own transaction.
public func op(_ counter: UInt64, _ replica: ReplicaID, _ action: Op.Action) -> Op {
    let id = opID(counter, replica)
    return Op(id: id, transaction: TransactionID(id), action: action)
}

public func key(_ string: String) -> ZKey {
    do {
        return try ZKey(string)
    } catch {
        fatalError("fixture key \(string) is invalid: \(error)")
    }
}

public func sample(_ x: Float, _ y: Float, _ time: Float, force: Float? = nil) -> StrokeSample {
    StrokeSample(x: x, y: y, time: time, force: force)
}

extension Document {
    public init(applying ops: [Op]) {
        self.init()
        for op in ops { apply(op) }
    }
}
