import EaselModel

extension ByteWriter {
    /// A field: its tag, then its value (Protocol/README.md, 3.1 and 4.3).
    mutating func field(_ field: Field) {
        byte(field.id.rawValue)
        switch field {
        case .x(let value), .y(let value), .scale(let value), .rotation(let value),
            .weight(let value), .size(let value), .width(let value), .height(let value):
            float(value)
        case .zKey(let key): string(key.string)
        case .color(let color), .fill(let color): self.color(color)
        case .character(let string), .text(let string), .font(let string): self.string(string)
        case .textStyle(let value): byte(value.rawValue)
        case .alignment(let value): byte(value.rawValue)
        case .shape(let value): byte(value.rawValue)
        case .tool(let value): byte(value.rawValue)
        case .endCap(let value): byte(value.rawValue)
        case .blob(let hash): append(contentsOf: hash.bytes)
        case .fit(let value): byte(value.rawValue)
        case .erases(let erased): erasedEntities(erased)
        }
    }

    /// An eraser's `erases` (section 4.3): its own small replica table, in
    /// order of first use, then each entity by index and counter with the
    /// transform it had.
    private mutating func erasedEntities(_ erased: [ErasedEntity]) {
        var replicas: [ReplicaID] = []
        for target in erased where !replicas.contains(target.entity.author) { replicas.append(target.entity.author) }
        varint(replicas.count)
        for replica in replicas { uint64(replica.rawValue) }
        varint(erased.count)
        for target in erased {
            varint(replicas.firstIndex(of: target.entity.author) ?? 0)
            varint(target.entity.creation.counter)
            float(target.transform.x)
            float(target.transform.y)
            float(target.transform.scale)
            float(target.transform.rotation)
        }
    }
}

extension BinaryReader {
    mutating func field() throws(DecodeError) -> Field {
        try field(tag: try byte("a field tag"))
    }

    /// A field whose tag was just read.
    mutating func field(tag: UInt8) throws(DecodeError) -> Field {
        guard let id = FieldID(rawValue: tag) else {
            throw DecodeError(.unknownTag, "unknown field tag \(tag) at byte \(offset - 1)")
        }
        // Autoclosures below: the field's name is built only for an error.
        switch id {
        // One read for every number: eight inlined reads made this the
        // WebAssembly module's second largest function.
        case .x, .y, .scale, .rotation, .weight, .size, .width, .height: return id.number(try float(id.description))
        case .zKey:
            let string = try string(id.description, limit: ModelLimits.zKeyBytes, limitCode: .invalidValue)
            do {
                return .zKey(try ZKey(string))
            } catch {
                throw DecodeError(.invalidValue, error.description)
            }
        case .color: return .color(try color(id.description))
        case .fill: return .fill(try color(id.description))
        case .character: return .character(try string(id.description, limit: ModelLimits.characterBytes))
        case .text: return .text(try string(id.description, limit: ModelLimits.textBytes))
        case .font: return .font(try string(id.description, limit: ModelLimits.fontBytes))
        case .textStyle: return .textStyle(try enumeration(TextStyle.self, id.description))
        case .alignment: return .alignment(try enumeration(TextAlignment.self, id.description))
        case .shape: return .shape(try enumeration(ShapeKind.self, id.description))
        case .tool: return .tool(try enumeration(StrokeTool.self, id.description))
        case .endCap: return .endCap(try enumeration(EndCap.self, id.description))
        case .blob: return .blob(BlobHash(bytes: try bytes(count: 32, id.description)))
        case .fit: return .fit(try enumeration(BackgroundFit.self, id.description))
        case .erases: return .erases(try erasedEntities())
        }
    }

    private mutating func erasedEntities() throws(DecodeError) -> [ErasedEntity] {
        let limit = ModelLimits.erasedEntities
        let replicaCount = try count(of: "erased entities' replicas", limit: limit, minimumBytes: 8)
        var replicas: [ReplicaID] = []
        replicas.reserveCapacity(replicaCount)
        for _ in 0..<replicaCount { replicas.append(ReplicaID(rawValue: try fixed64("an erased entity's replica"))) }
        let count = try count(of: "erased entities", limit: limit, limitCode: .invalidValue, minimumBytes: 18)
        var erased: [ErasedEntity] = []
        erased.reserveCapacity(count)
        for index in 0..<count {
            let replica = try reference(into: replicas, "erased entity \(index)'s replica index")
            let counter = try varint("erased entity \(index)'s counter")
            guard counter > 0 else { throw DecodeError(.invalidValue, "erased entity \(index) has counter 0") }
            let transform = Transform(
                x: try float("erased entity \(index)'s x"), y: try float("erased entity \(index)'s y"),
                scale: try float("erased entity \(index)'s scale"),
                rotation: try float("erased entity \(index)'s rotation"))
            erased.append(
                ErasedEntity(entity: EntityID(OpID(counter: counter, replica: replica)), transform: transform))
        }
        return erased
    }

    mutating func enumeration<T: RawRepresentable<UInt8>>(_ type: T.Type, _ what: @autoclosure () -> String)
        throws(DecodeError) -> T
    {
        let raw = try byte(what())
        guard let value = T(rawValue: raw) else {
            throw DecodeError(.unknownTag, "unknown \(what()) \(raw) at byte \(offset - 1)")
        }
        return value
    }
}
