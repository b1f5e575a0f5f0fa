/// Everything a replica holds about one entity: its transform, z-order key
/// and `alive` flag inline (the registers gestures and the z-order read
/// most), the other fields' registers as written (`WrittenFields`), and
/// stroke chunks.
///
/// A field can be set before the create that tells the kind arrives; a
/// field the kind does not have is kept but never shown.
struct EntityRecord: Hashable, Sendable {
    let id: EntityID
    /// Nil until the create arrives.
    var kind: EntityKind?

    var x = Register<Float>(default: 0)
    var y = Register<Float>(default: 0)
    var scale = Register<Float>(default: 1)
    var rotation = Register<Float>(default: 0)
    var zKey = Register<ZKey>(default: .first)
    var alive = Register<Bool>(default: false)
    private(set) var written = WrittenFields()
    var strokeSamples = StrokeSamples()

    init(id: EntityID) {
        self.id = id
    }

    var isVisible: Bool { kind != nil && alive.value }

    /// A visible pixel or blur eraser stroke.
    var isEraser: Bool {
        isVisible && kind == .stroke && (tool.value == .eraser || tool.value == .blur)
    }

    mutating func merge(_ field: Field, stampedAt stamp: OpID) -> MergeOutcome {
        switch field {
        case .x(let value): x.merge(value.canonical, stampedAt: stamp)
        case .y(let value): y.merge(value.canonical, stampedAt: stamp)
        case .scale(let value): scale.merge(value.canonical, stampedAt: stamp)
        case .rotation(let value): rotation.merge(value.canonical, stampedAt: stamp)
        case .zKey(let value): zKey.merge(value, stampedAt: stamp)
        case .weight(let value): mergeWritten(.weight(value.canonical), stampedAt: stamp)
        case .size(let value): mergeWritten(.size(value.canonical), stampedAt: stamp)
        case .width(let value): mergeWritten(.width(value.canonical), stampedAt: stamp)
        case .height(let value): mergeWritten(.height(value.canonical), stampedAt: stamp)
        case .erases(let value): mergeWritten(.erases(value.map { $0.canonical }), stampedAt: stamp)
        case .color, .fill, .character, .text, .font, .textStyle, .alignment, .shape, .tool, .endCap, .blob, .fit:
            mergeWritten(field, stampedAt: stamp)
        }
    }

    /// `merge(_:stampedAt:)` of a field that holds one number, without the
    /// field as an enum.
    @inline(__always)
    mutating func merge(number value: Float, into field: FieldID, stampedAt stamp: OpID) -> MergeOutcome {
        switch field {
        case .x: x.merge(value.canonical, stampedAt: stamp)
        case .y: y.merge(value.canonical, stampedAt: stamp)
        case .scale: scale.merge(value.canonical, stampedAt: stamp)
        case .rotation: rotation.merge(value.canonical, stampedAt: stamp)
        default: mergeWritten(field.number(value.canonical), stampedAt: stamp)
        }
    }

    private mutating func mergeWritten(_ field: Field, stampedAt stamp: OpID) -> MergeOutcome {
        written.merge(field, stampedAt: stamp, unwritten: Self.unwrittenValue(of: field.id))
    }

    /// Room for the registers a create's fields need, so they allocate once.
    mutating func reserveRegisters(for fields: [Field]) {
        var count = 0
        for field in fields where field.id.rawValue > FieldID.zKey.rawValue { count += 1 }
        written.reserve(count)
    }

    /// The register of `field` as a value and its stamp.
    func read(_ field: FieldID) -> (value: Field, stamp: OpID) {
        switch field {
        case .x: return (.x(x.value), x.stamp)
        case .y: return (.y(y.value), y.stamp)
        case .scale: return (.scale(scale.value), scale.stamp)
        case .rotation: return (.rotation(rotation.value), rotation.stamp)
        case .zKey: return (.zKey(zKey.value), zKey.stamp)
        default:
            guard let register = written.register(field) else { return (Self.unwrittenValue(of: field), .unwritten) }
            return (register.value, register.stamp)
        }
    }

    /// What a field reads before anyone writes it.
    static func unwrittenValue(of field: FieldID) -> Field {
        switch field {
        case .x: .x(0)
        case .y: .y(0)
        case .scale: .scale(1)
        case .rotation: .rotation(0)
        case .zKey: .zKey(.first)
        case .color: .color(.black)
        case .fill: .fill(.clear)
        case .weight: .weight(2)
        case .size: .size(48)
        case .width: .width(100)
        case .height: .height(100)
        case .character: .character("")
        case .text: .text("")
        case .font: .font("")
        case .textStyle: .textStyle(.regular)
        case .alignment: .alignment(.left)
        case .shape: .shape(.rectangle)
        case .tool: .tool(.pen)
        case .endCap: .endCap(.round)
        case .blob: .blob(.none)
        case .fit: .fit(.contain)
        case .erases: .erases([])
        }
    }

    var color: Register<Color> { typed(.color) { if case .color(let value) = $0 { value } else { nil } } }
    var fill: Register<Color> { typed(.fill) { if case .fill(let value) = $0 { value } else { nil } } }
    var weight: Register<Float> { typed(.weight) { if case .weight(let value) = $0 { value } else { nil } } }
    var size: Register<Float> { typed(.size) { if case .size(let value) = $0 { value } else { nil } } }
    var width: Register<Float> { typed(.width) { if case .width(let value) = $0 { value } else { nil } } }
    var height: Register<Float> { typed(.height) { if case .height(let value) = $0 { value } else { nil } } }
    var character: Register<String> { typed(.character) { if case .character(let value) = $0 { value } else { nil } } }
    var text: Register<String> { typed(.text) { if case .text(let value) = $0 { value } else { nil } } }
    var font: Register<String> { typed(.font) { if case .font(let value) = $0 { value } else { nil } } }
    var textStyle: Register<TextStyle> {
        typed(.textStyle) { if case .textStyle(let value) = $0 { value } else { nil } }
    }
    var alignment: Register<TextAlignment> {
        typed(.alignment) { if case .alignment(let value) = $0 { value } else { nil } }
    }
    var shape: Register<ShapeKind> { typed(.shape) { if case .shape(let value) = $0 { value } else { nil } } }
    var tool: Register<StrokeTool> { typed(.tool) { if case .tool(let value) = $0 { value } else { nil } } }
    var endCap: Register<EndCap> { typed(.endCap) { if case .endCap(let value) = $0 { value } else { nil } } }
    var blob: Register<BlobHash> { typed(.blob) { if case .blob(let value) = $0 { value } else { nil } } }
    var fit: Register<BackgroundFit> { typed(.fit) { if case .fit(let value) = $0 { value } else { nil } } }
    /// Never written on an eraser stroke made before erasures belonged to
    /// what they erased: such an eraser masks everything below it.
    var erases: Register<[ErasedEntity]> { typed(.erases) { if case .erases(let value) = $0 { value } else { nil } } }

    private func typed<Value>(_ field: FieldID, _ payload: (Field) -> Value?) -> Register<Value> {
        let (value, stamp) = read(field)
        guard let typed = payload(value) else { preconditionFailure("a written register holds another field's value") }
        return Register(typed, stampedAt: stamp)
    }
}
