/// The registers of an entity's style and content fields that have ever been
/// written, sorted by field.
///
/// An entity of one kind writes a few of the seventeen (an emoji its
/// character and size, a shape four or five), and a register costs its
/// value and a 16-byte stamp: held inline, all seventeen made a record
/// about 660 bytes in the module, most of it registers never written. A
/// field that is absent here reads as its default, unwritten.
struct WrittenFields: Hashable, Sendable {
    /// In tag order (the order of `present`'s bits).
    private(set) var registers: [Register<Field>] = []
    /// Bit `n` set when the field whose raw value is `n` has a register:
    /// a register is found by counting the bits below its own, never by
    /// scanning (renders and hit tests read these for every entity).
    private var present: UInt32 = 0

    /// The register of `field`, if it was ever written.
    @inline(__always)
    func register(_ field: FieldID) -> Register<Field>? {
        let bit = UInt32(1) << UInt32(field.rawValue)
        guard present & bit != 0 else { return nil }
        return registers[(present & (bit &- 1)).nonzeroBitCount]
    }

    /// Merges a write into the register of its field; `unwritten` is that
    /// field's default, which a register nobody wrote holds.
    mutating func merge(_ candidate: Field, stampedAt stamp: OpID, unwritten: @autoclosure () -> Field) -> MergeOutcome {
        let bit = UInt32(1) << UInt32(candidate.id.rawValue)
        let index = (present & (bit &- 1)).nonzeroBitCount
        if present & bit != 0 { return registers[index].merge(candidate, stampedAt: stamp) }
        var register = Register(default: unwritten())
        let outcome = register.merge(candidate, stampedAt: stamp)
        if outcome == .applied {
            registers.insert(register, at: index)
            present |= bit
        }
        return outcome
    }

    /// Room for `count` more, so a create's fields allocate once.
    mutating func reserve(_ count: Int) {
        registers.reserveCapacity(registers.count + count)
    }
}

extension Field: RegisterValue {
    /// Two writes of one field with one stamp settle as that field's own
    /// register would settle them.
    public static func settles(_ candidate: Field, over current: Field) -> Bool {
        switch (candidate, current) {
        case (.x(let a), .x(let b)), (.y(let a), .y(let b)), (.scale(let a), .scale(let b)),
            (.rotation(let a), .rotation(let b)), (.weight(let a), .weight(let b)), (.size(let a), .size(let b)),
            (.width(let a), .width(let b)), (.height(let a), .height(let b)):
            Float.settles(a, over: b)
        case (.zKey(let a), .zKey(let b)): ZKey.settles(a, over: b)
        case (.color(let a), .color(let b)), (.fill(let a), .fill(let b)): Color.settles(a, over: b)
        case (.character(let a), .character(let b)), (.text(let a), .text(let b)), (.font(let a), .font(let b)):
            String.settles(a, over: b)
        case (.textStyle(let a), .textStyle(let b)): TextStyle.settles(a, over: b)
        case (.alignment(let a), .alignment(let b)): TextAlignment.settles(a, over: b)
        case (.shape(let a), .shape(let b)): ShapeKind.settles(a, over: b)
        case (.tool(let a), .tool(let b)): StrokeTool.settles(a, over: b)
        case (.endCap(let a), .endCap(let b)): EndCap.settles(a, over: b)
        case (.blob(let a), .blob(let b)): BlobHash.settles(a, over: b)
        case (.fit(let a), .fit(let b)): BackgroundFit.settles(a, over: b)
        case (.erases(let a), .erases(let b)): [ErasedEntity].settles(a, over: b)
        default: false
        }
    }
}
