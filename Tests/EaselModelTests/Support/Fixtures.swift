@testable import EaselModel

let alice = ReplicaID(rawValue: 0xA11CE)
let bob = ReplicaID(rawValue: 0xB0B0B)
let carol = ReplicaID(rawValue: 0xCA201)

func opID(_ counter: UInt64, _ replica: ReplicaID) -> OpID {
    OpID(counter: counter, replica: replica)
}

/// An op that is its own transaction.
func op(_ counter: UInt64, _ replica: ReplicaID, _ action: Op.Action) -> Op {
    let id = opID(counter, replica)
    return Op(id: id, transaction: TransactionID(id), action: action)
}

func key(_ string: String) -> ZKey {
    do {
        return try ZKey(string)
    } catch {
        fatalError("fixture key \(string) is invalid: \(error)")
    }
}

func sample(_ x: Float, _ y: Float, _ time: Float, force: Float? = nil) -> StrokeSample {
    StrokeSample(x: x, y: y, time: time, force: force)
}

extension Document {
    init(applying ops: [Op]) {
        self.init()
        for op in ops { apply(op) }
    }
}
