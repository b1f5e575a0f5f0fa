/// Everything a replica holds about one entity: a register per field of
/// every kind, the `alive` flag, and stroke chunks.
///
/// Registers exist for all fields whatever the kind, because a set can
/// arrive before the create that tells the kind; a field the kind does not
/// have is kept but never shown. Transform registers come first: they are
/// the ones gestures write most.
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
    var color = Register<Color>(default: .black)
    var fill = Register<Color>(default: .clear)
    var weight = Register<Float>(default: 2)
    var size = Register<Float>(default: 48)
    var width = Register<Float>(default: 100)
    var height = Register<Float>(default: 100)
    var character = Register<String>(default: "")
    var text = Register<String>(default: "")
    var font = Register<String>(default: "")
    var textStyle = Register<TextStyle>(default: .regular)
    var alignment = Register<TextAlignment>(default: .left)
    var shape = Register<ShapeKind>(default: .rectangle)
    var tool = Register<StrokeTool>(default: .pen)
    var endCap = Register<EndCap>(default: .round)
    var blob = Register<BlobHash>(default: .none)
    var fit = Register<BackgroundFit>(default: .contain)
    /// Never written on an eraser stroke made before erasures belonged to
    /// what they erased: such an eraser masks everything below it.
    var erases = Register<[ErasedEntity]>(default: [])
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
        case .color(let value): color.merge(value, stampedAt: stamp)
        case .fill(let value): fill.merge(value, stampedAt: stamp)
        case .weight(let value): weight.merge(value.canonical, stampedAt: stamp)
        case .size(let value): size.merge(value.canonical, stampedAt: stamp)
        case .width(let value): width.merge(value.canonical, stampedAt: stamp)
        case .height(let value): height.merge(value.canonical, stampedAt: stamp)
        case .character(let value): character.merge(value, stampedAt: stamp)
        case .text(let value): text.merge(value, stampedAt: stamp)
        case .font(let value): font.merge(value, stampedAt: stamp)
        case .textStyle(let value): textStyle.merge(value, stampedAt: stamp)
        case .alignment(let value): alignment.merge(value, stampedAt: stamp)
        case .shape(let value): shape.merge(value, stampedAt: stamp)
        case .tool(let value): tool.merge(value, stampedAt: stamp)
        case .endCap(let value): endCap.merge(value, stampedAt: stamp)
        case .blob(let value): blob.merge(value, stampedAt: stamp)
        case .fit(let value): fit.merge(value, stampedAt: stamp)
        case .erases(let value): erases.merge(value.map { $0.canonical }, stampedAt: stamp)
        }
    }

    /// The register of `field` as a value and its stamp.
    func read(_ field: FieldID) -> (value: Field, stamp: OpID) {
        switch field {
        case .x: (.x(x.value), x.stamp)
        case .y: (.y(y.value), y.stamp)
        case .scale: (.scale(scale.value), scale.stamp)
        case .rotation: (.rotation(rotation.value), rotation.stamp)
        case .zKey: (.zKey(zKey.value), zKey.stamp)
        case .color: (.color(color.value), color.stamp)
        case .fill: (.fill(fill.value), fill.stamp)
        case .weight: (.weight(weight.value), weight.stamp)
        case .size: (.size(size.value), size.stamp)
        case .width: (.width(width.value), width.stamp)
        case .height: (.height(height.value), height.stamp)
        case .character: (.character(character.value), character.stamp)
        case .text: (.text(text.value), text.stamp)
        case .font: (.font(font.value), font.stamp)
        case .textStyle: (.textStyle(textStyle.value), textStyle.stamp)
        case .alignment: (.alignment(alignment.value), alignment.stamp)
        case .shape: (.shape(shape.value), shape.stamp)
        case .tool: (.tool(tool.value), tool.stamp)
        case .endCap: (.endCap(endCap.value), endCap.stamp)
        case .blob: (.blob(blob.value), blob.stamp)
        case .fit: (.fit(fit.value), fit.stamp)
        case .erases: (.erases(erases.value), erases.stamp)
        }
    }
}
