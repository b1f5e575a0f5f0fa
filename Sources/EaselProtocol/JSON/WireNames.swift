import EaselModel

/// The names enums travel by in JSON (Protocol/README.md, 3.1); the web
/// page passes them by the same names.
public protocol WireNamed: CaseIterable, Equatable {
    var wireName: String { get }
}

extension WireNamed {
    public init?(wireName: String) {
        // Bytes, not String ==, which would take a Kelvin sign for a K.
        guard let value = Self.allCases.first(where: { $0.wireName.utf8.elementsEqual(wireName.utf8) }) else {
            return nil
        }
        self = value
    }
}

extension EntityKind: WireNamed {
    public var wireName: String { description }
}

extension TextStyle: WireNamed {
    public var wireName: String {
        switch self {
        case .regular: "regular"
        case .outlined: "outlined"
        case .framed: "framed"
        }
    }
}

extension TextAlignment: WireNamed {
    public var wireName: String {
        switch self {
        case .left: "left"
        case .center: "center"
        case .right: "right"
        }
    }
}

extension ShapeKind: WireNamed {
    public var wireName: String {
        switch self {
        case .rectangle: "rectangle"
        case .ellipse: "ellipse"
        case .arrow: "arrow"
        case .star: "star"
        case .bubble: "bubble"
        }
    }
}

extension StrokeTool: WireNamed {
    public var wireName: String {
        switch self {
        case .pen: "pen"
        case .brush: "brush"
        case .marker: "marker"
        case .neon: "neon"
        case .pencil: "pencil"
        case .eraser: "eraser"
        case .blur: "blur"
        }
    }
}

extension EndCap: WireNamed {
    public var wireName: String {
        switch self {
        case .round: "round"
        case .arrow: "arrow"
        }
    }
}

extension BackgroundFit: WireNamed {
    public var wireName: String {
        switch self {
        case .contain: "contain"
        case .cover: "cover"
        case .stretch: "stretch"
        }
    }
}

extension GestureKind: WireNamed {
    var wireName: String { name }
}

extension JSONFields {
    func named<T: WireNamed>(_ key: String, as type: T.Type) throws(DecodeError) -> T {
        let name = try string(key)
        guard let value = T(wireName: name) else {
            throw DecodeError(.unknownTag, "\(path).\(key): unknown name \"\(name.prefix(64))\"")
        }
        return value
    }
}

extension OpBatch.ActionTag: WireNamed {
    var wireName: String {
        switch self {
        case .create: "create"
        case .set: "set"
        case .delete: "delete"
        case .restore: "restore"
        case .append: "append"
        case .insertText: "insertText"
        case .deleteText: "deleteText"
        case .textSnapshot: "textSnapshot"
        }
    }
}
