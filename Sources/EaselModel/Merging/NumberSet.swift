/// A set of a field whose value is one number (x, y, scale, rotation,
/// weight, size, width, height): the op a drag or a pinch sends by the
/// thousand, as a receiver merges it.
///
/// Plain data: an array of them is copied and dropped without touching a
/// reference count, where `Op` is an enum whose payloads may hold strings,
/// so every copy of one switches over its cases.
public struct NumberSet: Hashable, Sendable {
    public let id: OpID
    public let transaction: TransactionID
    /// The entity's index in the table of the `ReceivedOps` holding it.
    public let entry: Int32
    public let field: FieldID
    public let value: Float

    /// Nil when `field` does not hold one number.
    @inlinable
    public init?(id: OpID, transaction: TransactionID, entry: Int32, field: FieldID, value: Float) {
        guard field.holdsOneNumber else { return nil }
        self.id = id
        self.transaction = transaction
        self.entry = entry
        self.field = field
        self.value = value
    }

    /// The same set as an op.
    @inlinable
    public func op(entity: EntityID) -> Op {
        Op(id: id, transaction: transaction, action: .set(entity, field.number(value)))
    }
}

extension FieldID {
    /// Whether the field's value is one Float.
    @inlinable
    public var holdsOneNumber: Bool {
        switch self {
        case .x, .y, .scale, .rotation, .weight, .size, .width, .height: true
        default: false
        }
    }

    /// The field a tag names when it holds one number; nil for any other
    /// tag.
    @inlinable @inline(__always)
    public static func holdingOneNumber(tag: UInt8) -> FieldID? {
        switch tag {
        case 1: .x
        case 2: .y
        case 3: .scale
        case 4: .rotation
        case 8: .weight
        case 9: .size
        case 10: .width
        case 11: .height
        default: nil
        }
    }

    /// The field holding `value`; a field that holds no number is a
    /// programming error.
    @inlinable
    public func number(_ value: Float) -> Field {
        switch self {
        case .x: .x(value)
        case .y: .y(value)
        case .scale: .scale(value)
        case .rotation: .rotation(value)
        case .weight: .weight(value)
        case .size: .size(value)
        case .width: .width(value)
        case .height: .height(value)
        default: preconditionFailure("\(self) holds no number")
        }
    }
}
