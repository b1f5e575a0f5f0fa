import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Records keep only the registers written")
struct WrittenFieldsTests {
    @Test("a record holds registers only for the style and content fields its ops wrote")
    func recordsHoldOnlyWrittenRegisters() {
        let emoji = op(1, alice, .create(.emoji, [.character("⭐️"), .size(40), .x(10), .y(20), .zKey(key("a1"))]))
        let shape = op(2, alice, .create(.shape, [.shape(.ellipse), .width(30), .height(20), .fill(.black)]))
        var document = Document(applying: [emoji, shape, op(3, bob, .set(emoji.entity, .color(.black)))])
        let written = { (entity: EntityID) in
            FieldID.allCases.filter { document.records[Int(document.slots[entity] ?? 0)].written.register($0) != nil }
        }
        #expect(written(emoji.entity) == [.color, .size, .character])
        #expect(written(shape.entity) == [.fill, .width, .height, .shape])
        // The unwritten ones read as their defaults, unwritten.
        let record = document.records[Int(document.slots[shape.entity] ?? 0)]
        #expect(record.color.value == .black && !record.color.isWritten)
        #expect(record.weight.value == 2 && !record.weight.isWritten)
        document.apply(op(4, carol, .set(shape.entity, .weight(5))))
        #expect(document[shape.entity]?.style.weight == 5)
    }

    @Test("every field's register reads the write with the highest stamp, ties settled by value, in any order")
    func everyFieldReadsItsWinningWrite() {
        for seed in propertySeeds(count: 300, label: "written fields") {
            var random = SeededRandom(seed: seed)
            let create = op(1, alice, .create(.stroke, []))
            var writes: [Op] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let field = randomField(using: &random)
                // Few counters and replicas, so stamps tie often.
                let replica = [alice, bob, carol][Int.random(in: 0...2, using: &random)]
                writes.append(op(UInt64.random(in: 2...6, using: &random), replica, .set(create.entity, field)))
            }
            // The reference: per field, the highest stamp, and between two
            // writes with one stamp the greater value (as each field's own
            // register orders its values).
            var expected: [FieldID: (Field, OpID)] = [:]
            for write in writes {
                guard case .set(_, let field) = write.action else { continue }
                guard let (current, stamp) = expected[field.id] else {
                    expected[field.id] = (field, write.id)
                    continue
                }
                if write.id > stamp || (write.id == stamp && isGreater(field, than: current)) {
                    expected[field.id] = (field, write.id)
                }
            }
            let document = Document(applying: [create] + writes.shuffled(using: &random))
            let record = document.records[0]
            for field in FieldID.allCases {
                let (value, stamp) = record.read(field)
                let (expectedValue, expectedStamp) = expected[field] ?? (EntityRecord.unwrittenValue(of: field), .unwritten)
                #expect(value == expectedValue && stamp == expectedStamp, "seed \(seed), \(field)")
            }
        }
    }

    private func isGreater(_ field: Field, than other: Field) -> Bool {
        switch (field, other) {
        case (.x(let a), .x(let b)), (.y(let a), .y(let b)), (.scale(let a), .scale(let b)),
            (.rotation(let a), .rotation(let b)), (.weight(let a), .weight(let b)), (.size(let a), .size(let b)),
            (.width(let a), .width(let b)), (.height(let a), .height(let b)):
            a.bitPattern > b.bitPattern
        case (.zKey(let a), .zKey(let b)): a > b
        case (.color(let a), .color(let b)), (.fill(let a), .fill(let b)): a.rawValue > b.rawValue
        case (.character(let a), .character(let b)), (.text(let a), .text(let b)), (.font(let a), .font(let b)):
            Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) == false && a != b
        case (.textStyle(let a), .textStyle(let b)): a.rawValue > b.rawValue
        case (.alignment(let a), .alignment(let b)): a.rawValue > b.rawValue
        case (.shape(let a), .shape(let b)): a.rawValue > b.rawValue
        case (.tool(let a), .tool(let b)): a.rawValue > b.rawValue
        case (.endCap(let a), .endCap(let b)): a.rawValue > b.rawValue
        case (.blob(let a), .blob(let b)): a > b
        case (.fit(let a), .fit(let b)): a.rawValue > b.rawValue
        default: false
        }
    }

    private func randomField(using random: inout SeededRandom) -> Field {
        let small = Float(Int.random(in: 0...2, using: &random))
        let text = ["", "a", "b"][Int.random(in: 0...2, using: &random)]
        let color = [Color.black, .clear, Color(rawValue: 0x3366_99ff)][Int.random(in: 0...2, using: &random)]
        return switch FieldID.allCases[Int.random(in: 0..<FieldID.allCases.count, using: &random)] {
        case .x: .x(small)
        case .y: .y(small)
        case .scale: .scale(small + 1)
        case .rotation: .rotation(small)
        case .zKey: .zKey(key(["a1", "a2", "a3"][Int.random(in: 0...2, using: &random)]))
        case .color: .color(color)
        case .fill: .fill(color)
        case .weight: .weight(small)
        case .size: .size(small)
        case .width: .width(small)
        case .height: .height(small)
        case .character: .character(text)
        case .text: .text(text)
        case .font: .font(text)
        case .textStyle: .textStyle([.regular, .outlined][Int.random(in: 0...1, using: &random)])
        case .alignment: .alignment([.left, .center][Int.random(in: 0...1, using: &random)])
        case .shape: .shape([.rectangle, .ellipse][Int.random(in: 0...1, using: &random)])
        case .tool: .tool([.pen, .marker][Int.random(in: 0...1, using: &random)])
        case .endCap: .endCap([.round, .arrow][Int.random(in: 0...1, using: &random)])
        case .blob: .blob(Int.random(in: 0...1, using: &random) == 0 ? .none : BlobHash(words: (1, 2, 3, 4)))
        case .fit: .fit([.contain, .cover][Int.random(in: 0...1, using: &random)])
        case .erases: .erases([])
        }
    }
}
