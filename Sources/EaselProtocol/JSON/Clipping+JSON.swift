import EaselModel

/// The page's clipboard format (Protocol/README.md, "Clippings"): JSON text
/// that names itself, so a paste knows it from any other text, with each
/// entity's fields as ops write them and a stroke's samples in chunks of
/// at most 4,096, as appends carry them.
public enum ClippingJSON {
    /// What the text starts with: `{"easel":"clipping"`.
    public static let marker = "clipping"
    public static let version = 1
    /// The longest clipping text read, in bytes.
    public static let maximumBytes = 16 << 20

    public static func encode(_ clipping: Clipping) -> String {
        var json = JSONWriter(capacity: 256)
        json.object { json in
            json.member("easel", marker)
            json.key("version")
            json.integer(version)
            json.key("entities")
            json.array { json in
                for item in clipping.items {
                    json.object { json in
                        json.member("kind", item.kind.wireName)
                        json.key("dx")
                        json.float(item.offset.dx)
                        json.key("dy")
                        json.float(item.offset.dy)
                        json.key("fields")
                        json.fields(item.fields)
                        guard !item.samples.isEmpty else { return }
                        json.key("samples")
                        json.array { json in
                            var start = 0
                            while start < item.samples.count {
                                let end = min(start + ModelLimits.samplesPerAppend, item.samples.count)
                                json.samples(item.samples[start..<end])
                                start = end
                            }
                        }
                    }
                }
            }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The clipping a text holds. Never traps; text that is not a clipping
    /// of this version, or holds a field no op could, is refused whole.
    public static func decode(_ text: String) throws(DecodeError) -> Clipping {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumBytes else {
            throw DecodeError(.tooLarge, "the clipping is \(bytes.count) bytes; at most \(maximumBytes)")
        }
        let parsed = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> JSONValue in try JSONParser.parse(buffer) }
        }
        let json = try JSONFields(try parsed.get(), path: "clipping")
        guard try json.string("easel") == marker else {
            throw DecodeError(.invalidValue, "clipping.easel must be \"\(marker)\"")
        }
        guard try json.integer("version", as: Int.self) == version else {
            throw DecodeError(.invalidValue, "clipping.version must be \(version)")
        }
        let values = try json.array("entities")
        guard !values.isEmpty, values.count <= Clipping.maximumItems else {
            throw DecodeError(.tooLarge, "a clipping holds 1 to \(Clipping.maximumItems) entities, not \(values.count)")
        }
        var items: [Clipping.Item] = []
        for (index, value) in values.enumerated() {
            let entity = try JSONFields(value, path: "clipping.entities[\(index)]")
            let kind = try entity.named("kind", as: EntityKind.self)
            let fields = try JSONOps.fields(entity.fields("fields"), single: false)
            // Validated as the create an op would carry, but for a text
            // longer than a create carries: a paste types it in after
            // (`TransactionBuilder.create(copying:_:)`), up to what a text
            // may ever hold.
            var created = fields
            if let index = fields.firstIndex(where: { $0.id == .text }), case .text(let string) = fields[index],
                string.utf8.count > ModelLimits.textBytes
            {
                guard string.unicodeScalars.count <= ModelLimits.charactersPerText else {
                    throw DecodeError(.tooLarge, "\(entity.path).fields.text holds over \(ModelLimits.charactersPerText) characters")
                }
                created[index] = .text("")
            }
            let probe = Op(id: OpID(counter: 1, replica: ReplicaID(rawValue: 1)),
                           transaction: TransactionID(OpID(counter: 1, replica: ReplicaID(rawValue: 1))),
                           action: .create(kind, created))
            try probe.validateForWire(index: index)
            var samples: [StrokeSample] = []
            if entity.has("samples") {
                guard kind == .stroke else { throw DecodeError(.invalidValue, "\(entity.path): only strokes have samples") }
                for (chunk, value) in try entity.array("samples").enumerated() {
                    guard case .array(let chunkValues) = value else {
                        throw DecodeError(.wrongType, "\(entity.path).samples[\(chunk)] must be an array")
                    }
                    samples += try JSONOps.samples(chunkValues, path: "\(entity.path).samples[\(chunk)]")
                    guard samples.count <= Clipping.maximumSamples else {
                        throw DecodeError(.tooLarge, "\(entity.path) holds over \(Clipping.maximumSamples) samples")
                    }
                }
            }
            items.append(
                Clipping.Item(
                    kind: kind, fields: fields, offset: Vector(dx: try entity.float("dx"), dy: try entity.float("dy")),
                    samples: samples))
        }
        return Clipping(items: items)
    }
}

extension JSONWriter {
    /// Samples as appends write them: `[x, y, time]` or `[x, y, time, force]`.
    mutating func samples(_ samples: some Sequence<StrokeSample>) {
        array { json in
            for sample in samples {
                json.array { json in
                    json.float(sample.x)
                    json.float(sample.y)
                    json.float(sample.time)
                    if let force = sample.force { json.float(force) }
                }
            }
        }
    }
}
