import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

/// A receiver merges an `ops` message through `OpsMessageReader` and
/// `Document.apply(_: ReceivedOps)`: sets of numbers as plain data, each
/// entity looked up once a message. It must read, refuse and reach
/// exactly what decoding to `Message` and applying op by op does.
@Suite("Merging received ops")
struct ReceivedOpsTests {
    @Test(
        "an ops message read for merging holds the ops, in order, and the last position that decoding it as a Message gives, for many seeded editing sessions"
    )
    func receivedOpsHoldTheMessagesOps() throws {
        var numberSets = 0
        var others = 0
        for seed in propertySeeds(count: 60, label: "received ops") {
            var random = SeededRandom(seed: seed)
            let log = WasmFixtureTests.session(seed: seed)
            var position: UInt64 = 0
            for chunk in stride(from: 0, to: log.count, by: 37).map({ log[$0..<min($0 + 37, log.count)] }) {
                let positioned = chunk.map { op in
                    position += UInt64.random(in: 1...3, using: &random)
                    return PositionedOp(position: position, op: op)
                }
                let bytes = Message.ops(positioned).binaryEncoded()
                let received = try #require(try Self.receivedOps(bytes), "seed \(seed)")
                #expect(received.ops.ops == positioned.map(\.op), "seed \(seed)")
                #expect(received.lastPosition == positioned.last?.position, "seed \(seed)")
                for op in chunk {
                    if case .set(_, let field) = op.action, field.id.holdsOneNumber {
                        numberSets += 1
                    } else {
                        others += 1
                    }
                }
            }
        }
        #expect(numberSets > 1000 && others > 1000, "the sessions made \(numberSets) number sets, \(others) others")
    }

    @Test(
        "applying ops read for merging reaches the state, highest counter included, of applying each op in turn, whatever order the messages arrive in, for many seeded sessions"
    )
    func applyingReceivedOpsReachesTheStateOfEachOp() throws {
        for seed in propertySeeds(count: 60, label: "received ops apply") {
            var random = SeededRandom(seed: seed)
            let log = WasmFixtureTests.session(seed: seed)
            // Messages of random sizes, delivered in a shuffled order, each
            // perhaps twice: sets overtake their creates and repeat.
            var messages: [[Op]] = []
            var start = 0
            while start < log.count {
                let end = min(log.count, start + Int.random(in: 1...120, using: &random))
                messages.append(Array(log[start..<end]))
                if random.chance(0.2) { messages.append(Array(log[start..<end])) }
                start = end
            }
            messages.shuffle(using: &random)
            var merged = Document()
            var eachOp = Document()
            for (index, ops) in messages.enumerated() {
                let positioned = ops.enumerated().map { PositionedOp(position: UInt64($0.offset + 1), op: $0.element) }
                let received = try #require(try Self.receivedOps(Message.ops(positioned).binaryEncoded()))
                merged.apply(received.ops)
                for op in ops { eachOp.apply(op) }
                if index % 7 == 0 {
                    #expect(merged.canonicalEncoding == eachOp.canonicalEncoding, "seed \(seed), message \(index)")
                }
            }
            #expect(merged.canonicalEncoding == eachOp.canonicalEncoding, "seed \(seed)")
            #expect(merged.highestCounter == eachOp.highestCounter, "seed \(seed)")
            #expect(merged.stateHash == Document(applying: log).stateHash, "seed \(seed)")
        }
    }

    @Test(
        "an ops message read for merging is refused with the code decoding it as a Message gives, and nothing is read from other messages"
    )
    func receivedOpsRefuseWhatDecodingRefuses() throws {
        var refused = 0
        for vector in InvalidVectors.all where vector.encoding == .binary {
            let bytes = try VectorFiles.message(VectorFiles.invalidPath(vector))
            guard bytes.count > 1, bytes[1] == MessageType.ops.rawValue else { continue }
            refused += 1
            do {
                _ = try Self.receivedOps(bytes)
                Issue.record("\(vector.name) was read")
            } catch {
                #expect(error.code == vector.code, "\(vector.name): \(error)")
            }
        }
        #expect(refused > 0)
        for (name, message) in ValidVectors.all {
            let golden = try VectorFiles.message(VectorFiles.validPath(name, .binary))
            if case .ops(let positioned) = message {
                #expect(try Self.receivedOps(golden)?.ops.ops == positioned.map(\.op), "\(name)")
            } else {
                #expect(try Self.receivedOps(golden) == nil, "\(name): not an ops message")
            }
        }
    }

    @Test(
        "a number set the fast path may not take (on the document, or in a transaction of another replica or a later counter) is refused as Op.validate refuses it, in an ops message read for merging"
    )
    func numberSetsOutsideTheFastPathAreCheckedWhole() throws {
        let entity = EntityID(opID(1, alice))
        let cases: [(Op, valid: Bool)] = [
            (Op(id: opID(5, alice), transaction: TransactionID(opID(3, alice)), action: .set(entity, .x(1))), true),
            (Op(id: opID(5, alice), transaction: TransactionID(opID(6, alice)), action: .set(entity, .x(1))), false),
            (Op(id: opID(5, alice), transaction: TransactionID(opID(3, bob)), action: .set(entity, .x(1))), false),
            (Op(id: opID(5, alice), transaction: TransactionID(opID(5, alice)), action: .set(.document, .x(1))), false),
            (
                Op(id: opID(5, alice), transaction: TransactionID(opID(5, alice)), action: .set(entity, .width(0))),
                (try? Op(
                    id: opID(5, alice), transaction: TransactionID(opID(5, alice)), action: .set(entity, .width(0))
                ).validate()) != nil
            ),
        ]
        for (op, valid) in cases {
            let bytes = Message.ops([PositionedOp(position: 1, op: op)]).binaryEncoded()
            let received = (try? Self.receivedOps(bytes)) ?? nil
            #expect((received != nil) == valid, "\(op)")
            let message = try? Message(binary: bytes)
            #expect((message != nil) == valid, "\(op)")
            if valid { #expect(received?.ops.ops == [op]) }
        }
    }

    @Test(
        "one reader reads message after message into the same storage, each giving its own ops, and a refused or other message leaves it holding none"
    )
    func aReaderReusedHoldsOnlyTheLastMessagesOps() throws {
        var reader = OpsMessageReader()
        let log = WasmFixtureTests.session(seed: 5)
        var position: UInt64 = 0
        for chunk in stride(from: 0, to: log.count, by: 50).map({ Array(log[$0..<min($0 + 50, log.count)]) }) {
            let positioned = chunk.map { op in
                position += 1
                return PositionedOp(position: position, op: op)
            }
            #expect(try reader.read(Message.ops(positioned).binaryEncoded()))
            #expect(reader.ops.ops == chunk)
            #expect(reader.lastPosition == position)
        }
        #expect(try !reader.read(Message.ping(nonce: 1).binaryEncoded()))
        #expect(reader.ops.count == 0 && reader.lastPosition == nil)
        var truncated = Message.ops([PositionedOp(position: 1, op: log[0])]).binaryEncoded()
        #expect(try reader.read(truncated))
        truncated.removeLast()
        #expect(throws: DecodeError.self) { try reader.read(truncated) }
        #expect(reader.ops.count == 0 && reader.lastPosition == nil)
    }

    @Test("every tag that names a field holding one number is read as one, and no other")
    func numberTagsAreTheNumberFields() {
        for tag in UInt8.min...UInt8.max {
            let field = FieldID(rawValue: tag)
            let expected = field.flatMap { $0.holdsOneNumber ? $0 : nil }
            #expect(FieldID.holdingOneNumber(tag: tag) == expected, "tag \(tag)")
        }
    }

    /// A fresh reader's ops and last position; nil for a message that is
    /// not `ops`.
    static func receivedOps(_ bytes: [UInt8]) throws(DecodeError) -> (ops: ReceivedOps, lastPosition: UInt64?)? {
        var reader = OpsMessageReader()
        guard try reader.read(bytes) else { return nil }
        return (reader.ops, reader.lastPosition)
    }
}
