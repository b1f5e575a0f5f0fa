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
    /// The client's document state at a position of the log, for peers to
    /// compare with theirs at the same position (protocol version 2).
    public var state: PresenceState?
    /// The caret and text selection in the text the client is typing into
    /// (protocol version 4).
    public var caret: TextCaret?

    public init(
        replica: ReplicaID, user: UserInfo, cursor: Point? = nil, viewport: VisibleArea? = nil,
        selection: [EntityID] = [], gesture: GesturePreview? = nil, idle: Bool = false, state: PresenceState? = nil,
        caret: TextCaret? = nil
    ) {
        self.replica = replica
        self.user = user
        self.cursor = cursor
        self.viewport = viewport
        self.selection = selection
        self.gesture = gesture
        self.idle = idle
        self.state = state
        self.caret = caret
    }
}

extension Presence {
    /// This presence as a peer speaking `version` may be sent it: without
    /// the fields its version does not know.
    public func spoken(in version: UInt32) -> Presence {
        var spoken = self
        if version < WireProtocol.presenceStateVersion { spoken.state = nil }
        if version < WireProtocol.textVersion { spoken.caret = nil }
        return spoken
    }
}

/// A document state as of a log position: the state hash of exactly the
/// log's first `position` ops. Two replicas that report the same position
/// and different hashes have diverged.
public struct PresenceState: Hashable, Sendable {
    public var position: UInt64
    public var hash: StateHash

    public init(position: UInt64, hash: StateHash) {
        self.position = position
        self.hash = hash
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

    /// Where the gesture shows `entity` while it is in flight; nil when it
    /// does not move it. The same arithmetic as the sender's editor.
    public func transform(of entity: Entity) -> Transform? {
        var transform = entity.transform
        switch self {
        case .moving(let ids, let offset) where ids.contains(entity.id):
            transform.x += offset.dx
            transform.y += offset.dy
        case .scaling(let ids, let factor) where ids.contains(entity.id):
            transform.scale *= factor
        case .rotating(let ids, let angle) where ids.contains(entity.id):
            transform.rotation += angle
        default:
            return nil
        }
        return transform
    }

    /// The entities the gesture moves (none for a stroke being drawn).
    public var entities: [EntityID] {
        switch self {
        case .moving(let ids, _), .scaling(let ids, _), .rotating(let ids, _): ids
        case .drawing: []
        }
    }

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
