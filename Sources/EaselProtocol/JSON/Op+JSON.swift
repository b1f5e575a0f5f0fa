import EaselModel

extension JSONWriter {
    /// An op as Protocol/README.md, section 5 shows it; `position` for ops
    /// that have one.
    mutating func op(_ op: Op, position: UInt64? = nil) {
        object { json in
            json.member("id", op.id.description)
            json.member("tx", op.transaction.first.description)
            switch op.action {
            case .create(let kind, let fields):
                json.member("op", "create")
                json.member("kind", kind.wireName)
                json.key("fields")
                json.fields(fields)
            case .set(let entity, let field):
                json.member("op", "set")
                json.member("entity", entity == .document ? JSONOps.documentEntity : entity.creation.description)
                json.key("fields")
                json.fields(CollectionOfOne(field))
            case .delete(let entity):
                json.member("op", "delete")
                json.member("entity", entity.creation.description)
            case .restore(let entity):
                json.member("op", "restore")
                json.member("entity", entity.creation.description)
            case .append(let entity, let start, let samples):
                json.member("op", "append")
                json.member("entity", entity.creation.description)
                json.key("start")
                json.integer(start)
                json.key("samples")
                json.samples(samples)
            case .insertText(let entity, let insertion):
                json.member("op", "insertText")
                json.member("entity", entity.creation.description)
                if let left = insertion.originLeft { json.member("after", left.description) }
                if let right = insertion.originRight { json.member("before", right.description) }
                json.text(insertion.scalars)
            case .deleteText(let entity, let runs):
                json.member("op", "deleteText")
                json.member("entity", entity.creation.description)
                json.key("runs")
                json.array { json in
                    for run in runs { json.characterRun(first: run.first, count: run.count) { _ in } }
                }
            case .textSnapshot(let entity, let snapshot):
                json.member("op", "textSnapshot")
                json.member("entity", entity.creation.description)
                json.key("runs")
                json.array { json in
                    for run in snapshot.runs {
                        json.characterRun(first: run.first, count: run.count) { json in
                            if let left = run.originLeft { json.member("after", left.description) }
                            if let right = run.originRight { json.member("before", right.description) }
                            if run.isDeleted {
                                json.key("deleted")
                                json.bool(true)
                            }
                        }
                    }
                }
                json.text(snapshot.scalars)
            }
            if let position {
                json.member("position", String(position))
            }
        }
    }

    /// `{"first": …, "count": …}` of a delete's or a snapshot's run, and
    /// whatever else `more` writes of it.
    private mutating func characterRun(first: OpID, count: Int, _ more: (inout JSONWriter) -> Void) {
        object { json in
            json.member("first", first.description)
            json.key("count")
            json.integer(count)
            more(&json)
        }
    }

    /// Characters as the `text` member.
    private mutating func text(_ scalars: some Sequence<Unicode.Scalar>) {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        member("text", String(text))
    }

    mutating func fields(_ fields: some Sequence<Field>) {
        object { json in
            for field in fields {
                json.key(field.id.description)
                switch field {
                case .x(let value), .y(let value), .scale(let value), .rotation(let value),
                    .weight(let value), .size(let value), .width(let value), .height(let value):
                    json.float(value)
                case .zKey(let key): json.string(key.string)
                case .color(let color), .fill(let color): json.string(color.description)
                case .character(let string), .text(let string), .font(let string): json.string(string)
                case .textStyle(let value): json.string(value.wireName)
                case .alignment(let value): json.string(value.wireName)
                case .shape(let value): json.string(value.wireName)
                case .tool(let value): json.string(value.wireName)
                case .endCap(let value): json.string(value.wireName)
                case .blob(let hash): json.string(hash.description)
                case .fit(let value): json.string(value.wireName)
                case .erases(let erased):
                    json.array { json in
                        for target in erased {
                            json.object { json in
                                json.member("entity", target.entity.creation.description)
                                json.key("x")
                                json.float(target.transform.x)
                                json.key("y")
                                json.float(target.transform.y)
                                json.key("scale")
                                json.float(target.transform.scale)
                                json.key("rotation")
                                json.float(target.transform.rotation)
                            }
                        }
                    }
                }
            }
        }
    }
}

enum JSONOps {
    /// How JSON names the document itself, whose fields hold its background.
    static let documentEntity = "document"

    static func ops(_ values: [JSONValue], path: String, limit: Int) throws(DecodeError) -> [Op] {
        guard values.count <= limit else { throw DecodeError(.tooLarge, "\(values.count) ops; at most \(limit)") }
        var ops: [Op] = []
        ops.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            ops.append(try op(JSONFields(value, path: "\(path)[\(index)]"), index: index))
        }
        return ops
    }

    static func positionedOps(_ values: [JSONValue], path: String, limit: Int) throws(DecodeError)
        -> [PositionedOp]
    {
        guard values.count <= limit else { throw DecodeError(.tooLarge, "\(values.count) ops; at most \(limit)") }
        var ops: [PositionedOp] = []
        ops.reserveCapacity(values.count)
        var previous: UInt64 = 0
        for (index, value) in values.enumerated() {
            let fields = try JSONFields(value, path: "\(path)[\(index)]")
            let position = try fields.uint64("position")
            guard position > previous else {
                throw DecodeError(.invalidValue, "\(fields.path).position: positions must strictly increase")
            }
            previous = position
            ops.append(PositionedOp(position: position, op: try op(fields, index: index)))
        }
        return ops
    }

    static func op(_ json: JSONFields, index: Int) throws(DecodeError) -> Op {
        let id = try json.opID("id")
        let transaction = TransactionID(try json.opID("tx"))
        let action: Op.Action
        switch try json.named("op", as: OpBatch.ActionTag.self) {
        case .create:
            let kind = try json.named("kind", as: EntityKind.self)
            action = .create(kind, try fields(json.fields("fields"), single: false))
        case .set:
            let entity =
                try json.string("entity") == JSONOps.documentEntity ? EntityID.document : EntityID(json.opID("entity"))
            guard let field = try fields(json.fields("fields"), single: true).first else {
                throw DecodeError(.invalidValue, "\(json.path).fields of a set holds exactly one field")
            }
            action = .set(entity, field)
        case .delete:
            action = .delete(EntityID(try json.opID("entity")))
        case .restore:
            action = .restore(EntityID(try json.opID("entity")))
        case .append:
            let entity = EntityID(try json.opID("entity"))
            let start = try json.integer("start", as: UInt32.self)
            action = .append(entity, start: start, samples: try samples(json.array("samples"), path: json.path))
        case .insertText:
            let entity = EntityID(try json.opID("entity"))
            let left = json.has("after") ? try json.opID("after") : nil
            let right = json.has("before") ? try json.opID("before") : nil
            let text = try json.string("text")
            action = .insertText(
                entity, TextInsertion(originLeft: left, originRight: right, scalars: Array(text.unicodeScalars)))
        case .deleteText:
            let entity = EntityID(try json.opID("entity"))
            let runs = try characterRuns(json, limit: ModelLimits.runsPerDelete) { _, first, count throws(DecodeError) in
                CharacterRun(first: first, count: count)
            }
            action = .deleteText(entity, runs)
        case .textSnapshot:
            action = .textSnapshot(EntityID(try json.opID("entity")), try textSnapshot(json))
        }
        let op = Op(id: id, transaction: transaction, action: action)
        try op.validateForWire(index: index)
        return op
    }

    /// A text snapshot's runs and text; the model checks the rest
    /// (`Op.validate()`).
    private static func textSnapshot(_ json: JSONFields) throws(DecodeError) -> TextSnapshot {
        let runs = try characterRuns(json, limit: ModelLimits.runsPerTextSnapshot) { run, first, count throws(DecodeError) in
            TextSnapshot.Run(
                first: first, count: count, originLeft: run.has("after") ? try run.opID("after") : nil,
                originRight: run.has("before") ? try run.opID("before") : nil,
                isDeleted: run.has("deleted") ? try run.bool("deleted") : false)
        }
        return TextSnapshot(runs: runs, scalars: Array(try json.string("text").unicodeScalars))
    }

    /// The `runs` of a delete or a snapshot: at most `limit`, each a first
    /// ID and a count of 1 ... 2^20, made into a run by `run` with its
    /// fields.
    private static func characterRuns<Run>(
        _ json: JSONFields, limit: Int, _ run: (JSONFields, OpID, Int) throws(DecodeError) -> Run
    ) throws(DecodeError) -> [Run] {
        let values = try json.array("runs")
        guard values.count <= limit else {
            throw DecodeError(.invalidValue, "\(json.path).runs: \(values.count) runs; at most \(limit)")
        }
        var runs: [Run] = []
        runs.reserveCapacity(values.count)
        for (offset, value) in values.enumerated() {
            let fields = try JSONFields(value, path: "\(json.path).runs[\(offset)]")
            let count = try fields.integer("count", as: Int.self)
            guard count > 0, count <= ModelLimits.charactersPerText else {
                throw DecodeError(.invalidValue, "\(fields.path).count: a run of \(count) characters")
            }
            runs.append(try run(fields, try fields.opID("first"), count))
        }
        return runs
    }

    static func fields(_ json: JSONFields, single: Bool) throws(DecodeError) -> [Field] {
        let members = json.object.members
        if single && members.count != 1 {
            throw DecodeError(.invalidValue, "\(json.path) of a set holds exactly one field, not \(members.count)")
        }
        var fields: [Field] = []
        fields.reserveCapacity(members.count)
        for (key, _) in members {
            fields.append(try field(key, in: json))
        }
        return fields
    }

    private static func field(_ key: String, in json: JSONFields) throws(DecodeError) -> Field {
        guard let id = FieldID.allCases.first(where: { $0.description.utf8.elementsEqual(key.utf8) }) else {
            throw DecodeError(.unknownTag, "\(json.path): unknown field \"\(key)\"")
        }
        switch id {
        case .x: return .x(try json.float(key))
        case .y: return .y(try json.float(key))
        case .scale: return .scale(try json.float(key))
        case .rotation: return .rotation(try json.float(key))
        case .weight: return .weight(try json.float(key))
        case .size: return .size(try json.float(key))
        case .width: return .width(try json.float(key))
        case .height: return .height(try json.float(key))
        case .zKey:
            let text = try json.string(key)
            do {
                return .zKey(try ZKey(text))
            } catch {
                throw DecodeError(.invalidValue, "\(json.path).zKey: \(error.description)")
            }
        case .color: return .color(try json.color(key))
        case .fill: return .fill(try json.color(key))
        case .character: return .character(try json.string(key))
        case .text: return .text(try json.string(key))
        case .font: return .font(try json.string(key))
        case .textStyle: return .textStyle(try json.named(key, as: TextStyle.self))
        case .alignment: return .alignment(try json.named(key, as: TextAlignment.self))
        case .shape: return .shape(try json.named(key, as: ShapeKind.self))
        case .tool: return .tool(try json.named(key, as: StrokeTool.self))
        case .endCap: return .endCap(try json.named(key, as: EndCap.self))
        case .blob:
            let text = try json.string(key)
            guard text.utf8.count == 64, text.utf8.allSatisfy(JSONConvert.isLowerHex), let hash = BlobHash(hex: text)
            else { throw DecodeError(.invalidValue, "\(json.path).blob must be 64 lower-case hex digits") }
            return .blob(hash)
        case .fit: return .fit(try json.named(key, as: BackgroundFit.self))
        case .erases: return .erases(try erasedEntities(json.array(key), path: "\(json.path).\(key)"))
        }
    }

    private static func erasedEntities(_ values: [JSONValue], path: String) throws(DecodeError) -> [ErasedEntity] {
        guard values.count <= ModelLimits.erasedEntities else {
            throw DecodeError(
                .invalidValue, "\(path) holds at most \(ModelLimits.erasedEntities) entities, not \(values.count)")
        }
        var erased: [ErasedEntity] = []
        erased.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            let target = try JSONFields(value, path: "\(path)[\(index)]")
            let transform = Transform(
                x: try target.float("x"), y: try target.float("y"), scale: try target.float("scale"),
                rotation: try target.float("rotation"))
            erased.append(ErasedEntity(entity: EntityID(try target.opID("entity")), transform: transform))
        }
        return erased
    }

    static func samples(_ values: [JSONValue], path: String) throws(DecodeError) -> [StrokeSample] {
        guard !values.isEmpty, values.count <= ModelLimits.samplesPerAppend else {
            throw DecodeError(
                .invalidValue, "\(path).samples holds 1 to \(ModelLimits.samplesPerAppend) samples, not \(values.count)"
            )
        }
        var samples: [StrokeSample] = []
        samples.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            let samplePath = "\(path).samples[\(index)]"
            guard case .array(let numbers) = value else {
                throw DecodeError(.wrongType, "\(samplePath) must be an array, not \(value.typeName)")
            }
            guard numbers.count == 3 || numbers.count == 4 else {
                throw DecodeError(.wrongType, "\(samplePath) must be [x, y, time] or [x, y, time, force]")
            }
            samples.append(
                StrokeSample(
                    x: try JSONConvert.float(numbers[0], samplePath), y: try JSONConvert.float(numbers[1], samplePath),
                    time: try JSONConvert.float(numbers[2], samplePath),
                    force: numbers.count == 4 ? try JSONConvert.float(numbers[3], samplePath) : nil))
        }
        return samples
    }
}
