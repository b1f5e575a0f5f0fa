/// What merging one write into a register did.
public enum MergeOutcome: Hashable, Sendable {
    /// The write won: the register now holds it.
    case applied
    /// A write with a later stamp already holds the register.
    case superseded
    /// The register already holds exactly this write.
    case duplicate
}

/// A value with a total order used only to settle two different writes
/// carrying the same stamp — which only a misbehaving peer can produce, but
/// every replica must still settle the same way.
public protocol RegisterValue: Hashable, Sendable {
    static func settles(_ candidate: Self, over current: Self) -> Bool
}

/// A last-writer-wins register: the write with the highest OpID wins.
public struct Register<Value: RegisterValue>: Hashable, Sendable {
    public private(set) var value: Value
    public private(set) var stamp: OpID

    init(default value: Value) {
        self.value = value
        stamp = .unwritten
    }

    /// A register as another representation held it.
    init(_ value: Value, stampedAt stamp: OpID) {
        self.value = value
        self.stamp = stamp
    }

    public var isWritten: Bool { stamp != .unwritten }

    mutating func merge(_ candidate: Value, stampedAt candidateStamp: OpID) -> MergeOutcome {
        if candidateStamp > stamp {
            value = candidate
            stamp = candidateStamp
            return .applied
        }
        if candidateStamp < stamp { return .superseded }
        if candidate == value { return .duplicate }
        if Value.settles(candidate, over: value) {
            value = candidate
            return .applied
        }
        return .superseded
    }
}

extension Float: RegisterValue {
    public static func settles(_ candidate: Float, over current: Float) -> Bool {
        candidate.bitPattern > current.bitPattern
    }
}

extension Bool: RegisterValue {
    public static func settles(_ candidate: Bool, over current: Bool) -> Bool { candidate && !current }
}

extension String: RegisterValue {
    public static func settles(_ candidate: String, over current: String) -> Bool {
        current.utf8.lexicographicallyPrecedes(candidate.utf8)
    }
}

extension ZKey: RegisterValue {
    public static func settles(_ candidate: ZKey, over current: ZKey) -> Bool { current < candidate }
}

extension BlobHash: RegisterValue {
    public static func settles(_ candidate: BlobHash, over current: BlobHash) -> Bool { current < candidate }
}

extension Color: RegisterValue {
    public static func settles(_ candidate: Color, over current: Color) -> Bool {
        candidate.rawValue > current.rawValue
    }
}

extension RegisterValue where Self: RawRepresentable, RawValue == UInt8 {
    public static func settles(_ candidate: Self, over current: Self) -> Bool { candidate.rawValue > current.rawValue }
}

extension TextStyle: RegisterValue {}
extension TextAlignment: RegisterValue {}
extension ShapeKind: RegisterValue {}
extension StrokeTool: RegisterValue {}
extension EndCap: RegisterValue {}
extension BackgroundFit: RegisterValue {}
