import EaselModel

/// One client's ephemeral state, relayed to its peers and never stored.
public struct Presence: Hashable, Sendable {
    public var replica: ReplicaID
    public var user: UserInfo
    /// The pointer in document units; nil when off the canvas.
    public var cursor: Point?
    public var viewport: VisibleArea?
    public var selection: [EntityID]
    public var gesture: GesturePreview?
    /// No interaction for a while: peers may fade the cursor.
    public var idle: Bool

    public init(
        replica: ReplicaID, user: UserInfo, cursor: Point? = nil, viewport: VisibleArea? = nil,
        selection: [EntityID] = [], gesture: GesturePreview? = nil, idle: Bool = false
    ) {
        self.replica = replica
        self.user = user
        self.cursor = cursor
        self.viewport = viewport
        self.selection = selection
        self.gesture = gesture
        self.idle = idle
    }
}

/// The part of the document a client sees, in document units. Its own type,
/// not `Rect`, because the wire carries origin and size exactly.
public struct VisibleArea: Hashable, Sendable {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x.canonical
        self.y = y.canonical
        self.width = width.canonical
        self.height = height.canonical
    }
}

/// A gesture in flight, for peers to draw before it commits.
public enum GesturePreview: Hashable, Sendable {
    case moving([EntityID], by: Vector)
    case scaling([EntityID], by: Float)
    /// Radians.
    case rotating([EntityID], by: Float)
    /// The stroke so far in document units (at most the latest 1024 points).
    case drawing(tool: StrokeTool, color: Color, weight: Float, points: [Point])

    var kind: GestureKind {
        switch self {
        case .moving: .moving
        case .scaling: .scaling
        case .rotating: .rotating
        case .drawing: .drawing
        }
    }
}

/// A gesture preview's tag in binary and `kind` in JSON.
enum GestureKind: UInt8, CaseIterable {
    case moving = 1
    case scaling = 2
    case rotating = 3
    case drawing = 4

    var name: String {
        switch self {
        case .moving: "moving"
        case .scaling: "scaling"
        case .rotating: "rotating"
        case .drawing: "drawing"
        }
    }
}
