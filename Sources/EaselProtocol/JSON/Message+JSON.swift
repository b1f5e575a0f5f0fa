import EaselModel

extension Message {
    /// The message in the JSON encoding (Protocol/README.md, section 5):
    /// keys in the spec's order, no whitespace.
    public func jsonEncoded() -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.member("type", type.description)
            switch self {
            case .hello(let hello):
                json.key("protocol")
                json.integer(hello.protocolVersion)
                json.member("document", hello.document.rawValue)
                json.member("replica", hello.replica.description)
                if let token = hello.token { json.member("token", token) }
                if let since = hello.since {
                    json.key("since")
                    json.object { json in
                        json.member("position", String(since.position))
                        json.member("epoch", since.epoch.description)
                    }
                }
                json.key("user")
                json.user(hello.user)
            case .welcome(let welcome):
                json.key("protocol")
                json.integer(welcome.protocolVersion)
                json.member("epoch", welcome.epoch.description)
                json.member("position", String(welcome.position))
                json.key("snapshot")
                switch welcome.content {
                case .snapshot(let ops):
                    json.bool(true)
                    json.key("more")
                    json.bool(welcome.more)
                    json.key("ops")
                    json.array { json in for op in ops { json.op(op) } }
                case .tail(let ops):
                    json.bool(false)
                    json.key("more")
                    json.bool(welcome.more)
                    json.key("ops")
                    json.positionedOps(ops)
                }
                json.key("peers")
                json.array { json in for peer in welcome.peers { json.presence(peer) } }
            case .push(let push):
                json.member("batch", String(push.batch))
                json.key("ops")
                json.array { json in for op in push.ops { json.op(op) } }
            case .ack(let ack):
                json.member("batch", String(ack.batch))
                json.member("first", String(ack.first))
                json.key("count")
                json.integer(ack.count)
            case .ops(let ops):
                json.key("ops")
                json.positionedOps(ops)
            case .presence(let presence):
                json.presenceMembers(presence)
            case .leave(let replica):
                json.member("replica", replica.description)
            case .error(let error):
                json.key("code")
                json.integer(error.code.rawValue)
                json.key("fatal")
                json.bool(error.fatal)
                if let batch = error.batch { json.member("batch", String(batch)) }
                json.member("message", error.message)
            case .ping(let nonce), .pong(let nonce):
                json.member("nonce", String(nonce))
            }
        }
        return json.bytes
    }

    /// Decodes one JSON message. Never traps, whatever the text; every
    /// failure is a `DecodeError` with the protocol's code.
    public init(json bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        guard bytes.count <= ProtocolLimits.messageBytes else {
            throw DecodeError(.tooLarge, "the message is \(bytes.count) bytes; at most \(ProtocolLimits.messageBytes)")
        }
        let json = try JSONFields(JSONParser.parse(bytes), path: "message")
        let typeName = try json.string("type")
        guard let type = MessageType(name: typeName) else {
            throw DecodeError(.unknownMessageType, "unknown message type \"\(typeName)\"")
        }
        self = try Message.decodeJSON(type, json)
    }

    public init(json bytes: [UInt8]) throws(DecodeError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> Message in try Message(json: buffer) }
        }
        self = try result.get()
    }

    public init(json text: String) throws(DecodeError) {
        try self.init(json: Array(text.utf8))
    }

    private static func decodeJSON(_ type: MessageType, _ json: JSONFields) throws(DecodeError) -> Message {
        switch type {
        case .hello:
            let replica = try json.replica("replica")
            guard replica.rawValue != 0 else { throw DecodeError(.invalidValue, "replica 0 is reserved") }
            let token = try json.optionalString("token")
            if let token { try checkLength(token, limit: ProtocolLimits.tokenBytes, of: "the token") }
            var since: ResumePoint?
            if let resume = try json.optionalFields("since") {
                since = ResumePoint(
                    position: try resume.uint64("position"),
                    epoch: Epoch(rawValue: try JSONConvert.hex64(resume.string("epoch"), "\(resume.path).epoch")))
            }
            return .hello(
                Hello(
                    protocolVersion: try json.integer("protocol", as: UInt32.self),
                    document: try DocumentName(json.string("document")), replica: replica, token: token, since: since,
                    user: try user(json.fields("user"))))
        case .welcome:
            let opsJSON = try json.array("ops")
            let content: Welcome.Content =
                try json.bool("snapshot")
                ? .snapshot(try JSONOps.ops(opsJSON, path: "message.ops", limit: ProtocolLimits.opsPerMessage))
                : .tail(try JSONOps.positionedOps(opsJSON, path: "message.ops", limit: ProtocolLimits.opsPerMessage))
            let peersJSON = try json.array("peers")
            guard peersJSON.count <= ProtocolLimits.peersInWelcome else {
                throw DecodeError(.tooLarge, "\(peersJSON.count) peers; at most \(ProtocolLimits.peersInWelcome)")
            }
            var peers: [Presence] = []
            for (index, peer) in peersJSON.enumerated() {
                peers.append(try presence(JSONFields(peer, path: "message.peers[\(index)]")))
            }
            return .welcome(
                Welcome(
                    protocolVersion: try json.integer("protocol", as: UInt32.self),
                    epoch: Epoch(rawValue: try JSONConvert.hex64(json.string("epoch"), "message.epoch")),
                    position: try json.uint64("position"), content: content, more: try json.bool("more"), peers: peers))
        case .push:
            let batch = try json.uint64("batch")
            do throws(DecodeError) {
                let ops = try JSONOps.ops(json.array("ops"), path: "message.ops", limit: ProtocolLimits.opsPerPush)
                guard !ops.isEmpty else { throw DecodeError(.invalidValue, "push \(batch) has no ops") }
                try Push.validatePositions(of: ops)
                return .push(Push(batch: batch, ops: ops))
            } catch {
                throw error.about(batch: batch)
            }
        case .ack:
            return .ack(
                Ack(
                    batch: try json.uint64("batch"), first: try json.uint64("first"),
                    count: try json.integer("count", as: UInt32.self)))
        case .ops:
            return .ops(
                try JSONOps.positionedOps(json.array("ops"), path: "message.ops", limit: ProtocolLimits.opsPerMessage))
        case .presence:
            return .presence(try presence(json))
        case .leave:
            return .leave(try json.replica("replica"))
        case .error:
            let message = try json.string("message")
            try checkLength(message, limit: ProtocolLimits.errorMessageBytes, of: "the error message")
            return .error(
                ErrorMessage(
                    code: ErrorCode(rawValue: try json.integer("code", as: UInt16.self)), fatal: try json.bool("fatal"),
                    batch: json.has("batch") ? try json.uint64("batch") : nil, message: message))
        case .ping:
            return .ping(nonce: try json.uint64("nonce"))
        case .pong:
            return .pong(nonce: try json.uint64("nonce"))
        }
    }

    private static func user(_ json: JSONFields) throws(DecodeError) -> UserInfo {
        let user = UserInfo(
            name: try json.string("name"), initials: try json.string("initials"), color: try json.color("color"))
        try user.validate()
        return user
    }

    private static func presence(_ json: JSONFields) throws(DecodeError) -> Presence {
        var cursor: Point?
        if let point = try json.optionalFields("cursor") {
            cursor = Point(x: try point.float("x"), y: try point.float("y"))
        }
        var viewport: VisibleArea?
        if let area = try json.optionalFields("viewport") {
            viewport = VisibleArea(
                x: try area.float("x"), y: try area.float("y"), width: try area.float("width"),
                height: try area.float("height"))
        }
        var gesture: GesturePreview?
        if let preview = try json.optionalFields("gesture") {
            gesture = try self.gesture(preview)
        }
        var state: PresenceState?
        if let fields = try json.optionalFields("state") {
            state = PresenceState(
                position: try fields.uint64("position"), hash: StateHash(rawValue: try fields.hex64("hash")))
        }
        var caret: TextCaret?
        if let fields = try json.optionalFields("caret") {
            caret = TextCaret(
                text: EntityID(try fields.opID("text")), anchor: try textAnchor(fields, "anchor"),
                head: try textAnchor(fields, "head"))
        }
        return Presence(
            replica: try json.replica("replica"), user: try user(json.fields("user")), cursor: cursor,
            viewport: viewport, selection: try entities(json, "selection"), gesture: gesture,
            idle: try json.bool("idle"), state: state, caret: caret)
    }

    /// The character a caret's place follows; absent for the text's start.
    private static func textAnchor(_ json: JSONFields, _ key: String) throws(DecodeError) -> TextAnchor {
        json.has(key) ? TextAnchor(after: try json.opID(key)) : .start
    }

    private static func entities(_ json: JSONFields, _ key: String) throws(DecodeError) -> [EntityID] {
        let values = try json.array(key)
        guard values.count <= ProtocolLimits.entitiesInPresence else {
            throw DecodeError(
                .tooLarge,
                "\(json.path).\(key) holds \(values.count) entities; at most \(ProtocolLimits.entitiesInPresence)")
        }
        var entities: [EntityID] = []
        for (index, value) in values.enumerated() {
            guard case .string(let text) = value else {
                throw DecodeError(.wrongType, "\(json.path).\(key)[\(index)] must be a string, not \(value.typeName)")
            }
            entities.append(EntityID(try JSONConvert.opID(text, "\(json.path).\(key)[\(index)]")))
        }
        return entities
    }

    private static func gesture(_ json: JSONFields) throws(DecodeError) -> GesturePreview {
        switch try json.named("kind", as: GestureKind.self) {
        case .moving:
            return .moving(
                try entities(json, "entities"), by: Vector(dx: try json.float("dx"), dy: try json.float("dy")))
        case .scaling:
            return .scaling(try entities(json, "entities"), by: try json.float("factor"))
        case .rotating:
            return .rotating(try entities(json, "entities"), by: try json.float("angle"))
        case .drawing:
            let values = try json.array("points")
            guard values.count <= ProtocolLimits.previewPoints else {
                throw DecodeError(.tooLarge, "\(values.count) preview points; at most \(ProtocolLimits.previewPoints)")
            }
            var points: [Point] = []
            for (index, value) in values.enumerated() {
                let path = "\(json.path).points[\(index)]"
                guard case .array(let numbers) = value, numbers.count == 2 else {
                    throw DecodeError(.wrongType, "\(path) must be [x, y]")
                }
                points.append(
                    Point(x: try JSONConvert.float(numbers[0], path), y: try JSONConvert.float(numbers[1], path)))
            }
            return .drawing(
                tool: try json.named("tool", as: StrokeTool.self), color: try json.color("color"),
                weight: try json.float("weight"), points: points)
        }
    }
}

extension JSONWriter {
    mutating func user(_ user: UserInfo) {
        object { json in
            json.member("name", user.name)
            json.member("initials", user.initials)
            json.member("color", user.color.description)
        }
    }

    mutating func positionedOps(_ ops: [PositionedOp]) {
        array { json in
            for positioned in ops { json.op(positioned.op, position: positioned.position) }
        }
    }

    mutating func presence(_ presence: Presence) {
        object { json in json.presenceMembers(presence) }
    }

    mutating func presenceMembers(_ presence: Presence) {
        member("replica", presence.replica.description)
        key("user")
        user(presence.user)
        if let cursor = presence.cursor {
            key("cursor")
            object { json in
                json.key("x")
                json.float(cursor.x)
                json.key("y")
                json.float(cursor.y)
            }
        }
        if let area = presence.viewport {
            key("viewport")
            object { json in
                json.key("x")
                json.float(area.x)
                json.key("y")
                json.float(area.y)
                json.key("width")
                json.float(area.width)
                json.key("height")
                json.float(area.height)
            }
        }
        key("selection")
        entities(presence.selection)
        if let gesture = presence.gesture {
            key("gesture")
            self.gesture(gesture)
        }
        key("idle")
        bool(presence.idle)
        if let state = presence.state {
            key("state")
            object { json in
                json.member("position", String(state.position))
                json.member("hash", state.hash.hex)
            }
        }
        if let caret = presence.caret {
            key("caret")
            object { json in
                json.member("text", caret.text.creation.description)
                if let after = caret.anchor.after { json.member("anchor", after.description) }
                if let after = caret.head.after { json.member("head", after.description) }
            }
        }
    }

    private mutating func entities(_ entities: [EntityID]) {
        array { json in for entity in entities { json.string(entity.creation.description) } }
    }

    private mutating func gesture(_ gesture: GesturePreview) {
        object { json in
            json.member("kind", gesture.kind.name)
            switch gesture {
            case .moving(let entities, let offset):
                json.key("entities")
                json.entities(entities)
                json.key("dx")
                json.float(offset.dx)
                json.key("dy")
                json.float(offset.dy)
            case .scaling(let entities, let factor):
                json.key("entities")
                json.entities(entities)
                json.key("factor")
                json.float(factor)
            case .rotating(let entities, let angle):
                json.key("entities")
                json.entities(entities)
                json.key("angle")
                json.float(angle)
            case .drawing(let tool, let color, let weight, let points):
                json.member("tool", tool.wireName)
                json.member("color", color.description)
                json.key("weight")
                json.float(weight)
                json.key("points")
                json.array { json in
                    for point in points {
                        json.array { json in
                            json.float(point.x)
                            json.float(point.y)
                        }
                    }
                }
            }
        }
    }
}
