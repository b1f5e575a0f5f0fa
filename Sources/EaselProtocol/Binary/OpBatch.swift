import EaselModel

/// The binary form of a list of ops (Protocol/README.md, 4.3): replicas and
/// entities go into tables once, and each op's header byte says which of
/// replica, counter and transaction simply follow from the previous op.
enum OpBatch {
    enum ActionTag: UInt8, CaseIterable {
        case create = 1
        case set = 2
        case delete = 3
        case restore = 4
        case append = 5
        case insertText = 6
        case deleteText = 7
        /// Past the header's three bits: the header's action is 0 and this
        /// tag is the body's first byte.
        case textSnapshot = 8

        /// The header's action bits: 0 for an extended tag.
        var headerBits: UInt8 { rawValue <= OpBatch.actionMask ? rawValue : 0 }
    }

    enum TransactionMode: UInt8 {
        case previous = 0
        case own = 1
        case explicit = 2
    }

    static let actionMask: UInt8 = 0x07
    static let replicaFollows: UInt8 = 0x08
    static let counterFollows: UInt8 = 0x10
    static let transactionShift: UInt8 = 5
    static let transactionMask: UInt8 = 0x60
    static let reservedBit: UInt8 = 0x80

    /// The smallest encoded op (delete: a header and an entity index).
    static let minimumOpBytes = 2

    /// Force modes of an append.
    static let noForce: UInt8 = 0
    static let everyForce: UInt8 = 1
    static let forceBitmap: UInt8 = 2

    /// An insert's flags: which origins it names, and whether its left one
    /// is the character just before its own ID, as typing on makes it.
    static let hasOriginLeft: UInt8 = 0x01
    static let hasOriginRight: UInt8 = 0x02
    static let typesOn: UInt8 = 0x04
    static let insertFlags: UInt8 = 0x07

    /// A text snapshot run's flags (Protocol/README.md, 4.3): deleted; its
    /// first ID written (else the previous run's end); how its left and
    /// right origins are given; whether its first ID names a replica (else
    /// the previous run's); whether its written origins name replicas
    /// (else the run's own).
    static let runDeleted: UInt8 = 0x01
    static let runFirstWritten: UInt8 = 0x02
    static let runLeftShift: UInt8 = 2
    static let runRightShift: UInt8 = 4
    static let runReplicaWritten: UInt8 = 0x40
    static let runOriginReplicasWritten: UInt8 = 0x80

    /// How a run's origin is given, in two bits.
    enum RunOrigin: UInt8 {
        case none = 0
        /// Left: the character before the run's first ID (typing on).
        /// Right: the next run's first character.
        case near = 1
        /// Left: the previous run's last character. Right: the previous
        /// run's right origin.
        case previous = 2
        case written = 3
    }
}

extension Op.Action {
    var tag: OpBatch.ActionTag {
        switch self {
        case .create: .create
        case .set: .set
        case .delete: .delete
        case .restore: .restore
        case .append: .append
        case .insertText: .insertText
        case .deleteText: .deleteText
        case .textSnapshot: .textSnapshot
        }
    }
}
