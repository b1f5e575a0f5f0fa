import EaselModel

private enum PresenceFlags {
    static let cursor: UInt8 = 0x01
    static let viewport: UInt8 = 0x02
    static let gesture: UInt8 = 0x04
    static let idle: UInt8 = 0x08
    static let state: UInt8 = 0x10
    static let caret: UInt8 = 0x20
    static let known: UInt8 = 0x3F
}

extension ByteWriter {
    mutating func user(_ user: UserInfo) {
        string(user.name)
        string(user.initials)
        color(user.color)
    }

    mutating func entityID(_ entity: EntityID) {
        varint(entity.creation.counter)
        uint64(entity.author.rawValue)
    }

    mutating func entityIDs(_ entities: [EntityID]) {
        varint(entities.count)
        for entity in entities { entityID(entity) }
    }

    mutating func presence(_ presence: Presence) {
        uint64(presence.replica.rawValue)
        user(presence.user)
        var flags: UInt8 = 0
        if presence.cursor != nil { flags |= PresenceFlags.cursor }
        if presence.viewport != nil { flags |= PresenceFlags.viewport }
        if presence.gesture != nil { flags |= PresenceFlags.gesture }
        if presence.idle { flags |= PresenceFlags.idle }
        if presence.state != nil { flags |= PresenceFlags.state }
        if presence.caret != nil { flags |= PresenceFlags.caret }
        byte(flags)
        if let cursor = presence.cursor { point(cursor) }
        if let area = presence.viewport {
            float(area.x)
            float(area.y)
            float(area.width)
            float(area.height)
        }
        entityIDs(presence.selection)
        if let gesture = presence.gesture { self.gesture(gesture) }
        if let state = presence.state {
            varint(state.position)
            uint64(state.hash.rawValue)
        }
        if let caret = presence.caret {
            entityID(caret.text)
            textAnchor(caret.anchor)
            textAnchor(caret.head)
        }
    }

    /// Counter 0 for the text's start, else the character's ID.
    private mutating func textAnchor(_ anchor: TextAnchor) {
        guard let character = anchor.after else { return varint(0) }
        varint(character.counter)
        uint64(character.replica.rawValue)
    }

    private mutating func gesture(_ gesture: GesturePreview) {
        byte(gesture.kind.rawValue)
        switch gesture {
        case .moving(let entities, let offset):
            entityIDs(entities)
            float(offset.dx)
            float(offset.dy)
        case .scaling(let entities, let factor):
            entityIDs(entities)
            float(factor)
        case .rotating(let entities, let angle):
            entityIDs(entities)
            float(angle)
        case .drawing(let tool, let color, let weight, let points):
            byte(tool.rawValue)
            self.color(color)
            float(weight)
            varint(points.count)
            for point in points { self.point(point) }
        }
    }
}

extension BinaryReader {
    mutating func user() throws(DecodeError) -> UserInfo {
        let name = try string("the user name", limit: ProtocolLimits.userNameBytes)
        let initials = try string("the initials", limit: ProtocolLimits.initialsBytes)
        return UserInfo(name: name, initials: initials, color: try color("the user colour"))
    }

    mutating func replicaID(_ what: String) throws(DecodeError) -> ReplicaID {
        ReplicaID(rawValue: try fixed64(what))
    }

    mutating func entityID() throws(DecodeError) -> EntityID {
        let counter = try varint("an entity counter")
        guard counter > 0 else { throw DecodeError(.invalidValue, "an entity ID has counter 0") }
        return EntityID(OpID(counter: counter, replica: try replicaID("an entity replica")))
    }

    mutating func entityIDs(_ what: String) throws(DecodeError) -> [EntityID] {
        // An entity ID takes at least a counter byte and 8 replica bytes.
        let count = try count(of: what, limit: ProtocolLimits.entitiesInPresence, minimumBytes: 9)
        var entities: [EntityID] = []
        entities.reserveCapacity(count)
        for _ in 0..<count { entities.append(try entityID()) }
        return entities
    }

    mutating func presence() throws(DecodeError) -> Presence {
        let replica = try replicaID("the presence replica")
        let user = try user()
        let flags = try flags("the presence flags", known: PresenceFlags.known)
        let cursor = flags & PresenceFlags.cursor != 0 ? try point("the cursor") : nil
        var viewport: VisibleArea?
        if flags & PresenceFlags.viewport != 0 {
            viewport = VisibleArea(
                x: try float("viewport x"), y: try float("viewport y"), width: try float("viewport width"),
                height: try float("viewport height"))
        }
        let selection = try entityIDs("selected entities")
        let gesture = flags & PresenceFlags.gesture != 0 ? try gesture() : nil
        var state: PresenceState?
        if flags & PresenceFlags.state != 0 {
            let position = try varint("the state position")
            state = PresenceState(position: position, hash: StateHash(rawValue: try fixed64("the state hash")))
        }
        var caret: TextCaret?
        if flags & PresenceFlags.caret != 0 {
            let text = try entityID()
            caret = TextCaret(text: text, anchor: try textAnchor(), head: try textAnchor())
        }
        return Presence(
            replica: replica, user: user, cursor: cursor, viewport: viewport, selection: selection, gesture: gesture,
            idle: flags & PresenceFlags.idle != 0, state: state, caret: caret)
    }

    private mutating func textAnchor() throws(DecodeError) -> TextAnchor {
        let counter = try varint("a caret's character counter")
        guard counter > 0 else { return .start }
        return TextAnchor(after: OpID(counter: counter, replica: try replicaID("a caret's character replica")))
    }

    private mutating func gesture() throws(DecodeError) -> GesturePreview {
        switch try enumeration(GestureKind.self, "gesture kind") {
        case .moving:
            let entities = try entityIDs("moved entities")
            return .moving(entities, by: Vector(dx: try float("gesture dx"), dy: try float("gesture dy")))
        case .scaling:
            let entities = try entityIDs("scaled entities")
            return .scaling(entities, by: try float("gesture factor"))
        case .rotating:
            let entities = try entityIDs("rotated entities")
            return .rotating(entities, by: try float("gesture angle"))
        case .drawing:
            let tool = try enumeration(StrokeTool.self, "tool")
            let color = try color("the stroke colour")
            let weight = try float("the stroke weight")
            let count = try count(of: "preview points", limit: ProtocolLimits.previewPoints, minimumBytes: 8)
            var points: [Point] = []
            points.reserveCapacity(count)
            for _ in 0..<count { points.append(try point("a preview point")) }
            return .drawing(tool: tool, color: color, weight: weight, points: points)
        }
    }
}
