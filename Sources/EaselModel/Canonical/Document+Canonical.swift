extension Document {
    /// Version of the canonical encoding; bump it and the golden vectors
    /// together, never one without the other.
    public static let canonicalEncodingVersion: UInt8 = 1

    /// One byte-exact encoding of the full state — every record, deleted
    /// or waiting for its create, with every written register's stamp and
    /// every stroke chunk — so two replicas hold the same state exactly
    /// when their encodings are equal. The layout is in Docs/model.md. O(n log n).
    public var canonicalEncoding: [UInt8] {
        var encoding: [UInt8] = []
        encodeCanonically { encoding += $0 }
        return encoding
    }

    /// XXH64 of the canonical encoding, hashed a record at a time: the whole
    /// encoding of 50,000 entities is about 7 MB, and the module's memory
    /// never shrinks from its peak.
    public var stateHash: StateHash {
        var hasher = XXH64.Streaming()
        encodeCanonically { hasher.add($0) }
        return StateHash(rawValue: hasher.finish())
    }

    /// The canonical encoding in pieces, in order: the header, then each
    /// record with its characters.
    private func encodeCanonically(_ piece: ([UInt8]) -> Void) {
        var writer = ByteWriter(capacity: 4096)
        for byte in "EASL".utf8 { writer.byte(byte) }
        writer.byte(Self.canonicalEncodingVersion)
        // Slots sorted, not records: a copy of every record would double
        // the document's memory for a moment.
        var ordered = (0..<Int32(records.count)).map { $0 }
        ordered.sort { records[Int($0)].id < records[Int($1)].id }
        writer.varint(UInt64(ordered.count))
        for slot in ordered {
            let record = records[Int(slot)]
            // Most boards have no text edited character by character:
            // then no record pays for a lookup.
            let characters = texts.isEmpty ? nil : texts[record.id].flatMap { $0.hasEdits ? $0 : nil }
            record.encodeCanonically(into: &writer, withCharacters: characters != nil)
            characters?.encodeCanonically(into: &writer)
            if writer.bytes.count >= 4096 {
                piece(writer.bytes)
                writer.removeAll()
            }
        }
        piece(writer.bytes)
    }
}

extension EntityRecord {
    /// A text whose characters were edited one by one sets the kind byte's
    /// top bit, and its characters follow the record.
    func encodeCanonically(into writer: inout ByteWriter, withCharacters: Bool = false) {
        writer.opID(id.creation)
        writer.byte((kind?.rawValue ?? 0) | (withCharacters ? 0x80 : 0))
        // Fields in tag order: the inline registers (x through zKey), then
        // the written ones, which are kept in tag order. Read in place: a
        // `Field` made for each of the 22 tags was most of a state hash.
        var inlineCount = zKey.isWritten ? 1 : 0
        if x.isWritten { inlineCount += 1 }
        if y.isWritten { inlineCount += 1 }
        if scale.isWritten { inlineCount += 1 }
        if rotation.isWritten { inlineCount += 1 }
        writer.varint(UInt64(inlineCount + written.registers.count + (alive.isWritten ? 1 : 0)))
        if alive.isWritten {
            // Tag 0 is the alive flag, which no set op names.
            writer.byte(0)
            writer.opID(alive.stamp)
            writer.byte(alive.value ? 1 : 0)
        }
        func inlineFloat(_ field: FieldID, _ register: Register<Float>) {
            guard register.isWritten else { return }
            writer.byte(field.rawValue)
            writer.opID(register.stamp)
            writer.float(register.value)
        }
        inlineFloat(.x, x)
        inlineFloat(.y, y)
        inlineFloat(.scale, scale)
        inlineFloat(.rotation, rotation)
        if zKey.isWritten {
            writer.byte(FieldID.zKey.rawValue)
            writer.opID(zKey.stamp)
            writer.string(zKey.value.string)
        }
        for register in written.registers {
            writer.byte(register.value.id.rawValue)
            writer.opID(register.stamp)
            register.value.encodeValue(into: &writer)
        }
        let chunks = strokeSamples.chunksByStart
        writer.varint(UInt64(chunks.count))
        for chunk in chunks {
            writer.varint(UInt64(chunk.start))
            writer.opID(chunk.stamp)
            writer.varint(UInt64(chunk.samples.count))
            for sample in chunk.samples {
                writer.float(sample.x)
                writer.float(sample.y)
                writer.float(sample.time)
                if let force = sample.force {
                    writer.byte(1)
                    writer.float(force)
                } else {
                    writer.byte(0)
                }
            }
        }
    }
}

extension TextCharacters {
    /// Whether the characters differ from the base string alone: a text
    /// whose only character ops still wait reads, and encodes, as its
    /// register.
    var hasEdits: Bool {
        sequence.count != baseLength || sequence.totalCount != baseLength
    }

    /// The base write, then every run in document order: its first ID,
    /// origins, deleted or not, its length and the scalars of one not
    /// deleted (a deleted character's is not part of the state).
    func encodeCanonically(into writer: inout ByteWriter) {
        writer.opID(base)
        let runs = sequence.runs
        writer.varint(UInt64(runs.count))
        for run in runs {
            writer.opID(run.insert.id)
            writer.opID(run.insert.originLeft ?? .unwritten)
            writer.opID(run.insert.originRight ?? .unwritten)
            writer.byte(run.isDeleted ? 1 : 0)
            writer.varint(UInt64(run.insert.scalars.count))
            guard !run.isDeleted else { continue }
            for scalar in run.insert.scalars { writer.varint(UInt64(scalar.value)) }
        }
    }
}

extension Field {
    func encodeValue(into writer: inout ByteWriter) {
        switch self {
        case .x(let value), .y(let value), .scale(let value), .rotation(let value),
            .weight(let value), .size(let value), .width(let value), .height(let value):
            writer.float(value)
        case .zKey(let key): writer.string(key.string)
        case .color(let color), .fill(let color): writer.uint32(color.rawValue)
        case .character(let string), .text(let string), .font(let string): writer.string(string)
        case .textStyle(let value): writer.byte(value.rawValue)
        case .alignment(let value): writer.byte(value.rawValue)
        case .shape(let value): writer.byte(value.rawValue)
        case .tool(let value): writer.byte(value.rawValue)
        case .endCap(let value): writer.byte(value.rawValue)
        case .blob(let hash): for byte in hash.bytes { writer.byte(byte) }
        case .fit(let value): writer.byte(value.rawValue)
        case .erases(let erased):
            writer.varint(UInt64(erased.count))
            for target in erased {
                writer.opID(target.entity.creation)
                writer.float(target.transform.x)
                writer.float(target.transform.y)
                writer.float(target.transform.scale)
                writer.float(target.transform.rotation)
            }
        }
    }
}
