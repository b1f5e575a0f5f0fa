import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

/// Questions an outside implementer found the spec left open, each settled
/// in Protocol/README.md by what the decoders do, and pinned here.
@Suite("Spec answers: the codecs")
struct SpecAnswersTests {
    /// alice's replica, little-endian, and her user (name, initials, colour).
    static let aliceReplica = "ce110a0000000000"
    static let aliceUser = "05 416c696365 01 41 e8456bff"

    // MARK: Question 2: counter 0 in an op batch's entity table (section 4.3)

    @Test("an entity-table entry with counter 0 and a replica other than 0 is 108, even when no op uses it")
    func counterZeroOfAnotherReplicaIsRefusedEvenUnused() {
        // Entities: #0 = alice's counter 1 (used by the delete), #1 = alice's counter 0 (unused).
        let unused = "01 03 07 01 \(Self.aliceReplica) 02 00 01 00 00 01 23 00"
        #expect(Self.binaryError(unused) == .invalidValue)
        #expect(Self.binaryBatch(unused) == 7, "a push's refusal names its batch")
        // The same entry used by a set of a document field.
        let used = "01 03 07 01 \(Self.aliceReplica) 01 00 00 01 22 00 07 faf4e6ff"
        #expect(Self.binaryError(used) == .invalidValue)
    }

    @Test("counter 0 with replica 0 in the entity table is the document itself, and a set of fit on it decodes")
    func counterZeroOfReplicaZeroIsTheDocument() throws {
        let hex = "01 03 07 02 \(Self.aliceReplica) 0000000000000000 01 01 00 01 22 00 15 01"
        let expected = Message.push(Push(batch: 7, ops: [op(1, alice, .set(.document, .fit(.cover)))]))
        #expect(try Message(binary: bytes(hex: hex)) == expected)
    }

    @Test("JSON names the document only as \"document\": \"0@…\" is 108 whatever the replica")
    func jsonHasNoCounterZeroIDs() throws {
        func setFill(on entity: String) -> String {
            #"{"type":"push","batch":"1","ops":[{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"set","entity":""#
                + entity + ##"","fields":{"fill":"#faf4e6ff"}}]}"##
        }
        #expect(Self.jsonError(setFill(on: "0@00000000000a11ce")) == .invalidValue)
        #expect(Self.jsonError(setFill(on: "0@0000000000000000")) == .invalidValue)
        let named = try Message(json: setFill(on: "document"))
        #expect(named == .push(Push(batch: 1, ops: [op(2, alice, .set(.document, .fill(Color(rawValue: 0xFAF4_E6FF))))])))
    }

    // MARK: Question 3: the document in a presence selection or gesture (section 2.6)

    @Test("a presence selection or gesture cannot name the document: JSON \"document\" or \"0@0…\" is 108")
    func jsonPresenceCannotNameTheDocument() {
        let head =
            ##"{"type":"presence","replica":"00000000000a11ce","user":{"name":"Alice","initials":"A","color":"#e8456bff"},"idle":false,"##
        for name in ["document", "0@0000000000000000"] {
            #expect(Self.jsonError(head + #""selection":[""# + name + #""]}"#) == .invalidValue, "selection \(name)")
            let moving = #""selection":[],"gesture":{"kind":"moving","entities":[""# + name + #""],"dx":1,"dy":2}}"#
            #expect(Self.jsonError(head + moving) == .invalidValue, "gesture \(name)")
        }
    }

    @Test("a presence selection or gesture cannot name the document: binary counter 0 is 108")
    func binaryPresenceCannotNameTheDocument() {
        let head = "01 06 \(Self.aliceReplica) \(Self.aliceUser)"
        #expect(Self.binaryError("\(head) 00 01 00 0000000000000000") == .invalidValue, "selection 0@0")
        let moving = "\(head) 04 00 01 01 00 0000000000000000 0000803f 00000040"
        #expect(Self.binaryError(moving) == .invalidValue, "moving gesture on 0@0")
    }

    // MARK: Question 4: the range of `protocol` (sections 2.1, 2.2, 6.6)

    /// A hello for document "a" from alice with this protocol varint.
    static func hello(protocol varint: String) -> String {
        "01 01 \(varint) 01 61 \(aliceReplica) 00 \(aliceUser)"
    }

    @Test(
        "a binary hello's protocol decodes from 0 to 2^32 − 1",
        arguments: [("00", UInt32(0)), ("01", UInt32(1)), ("03", UInt32(3)), ("ff ff ff ff 0f", UInt32.max)])
    func binaryHelloProtocolInRange(varint: String, version: UInt32) throws {
        guard case .hello(let hello) = try Message(binary: bytes(hex: Self.hello(protocol: varint))) else {
            Issue.record("not a hello")
            return
        }
        #expect(hello.protocolVersion == version)
    }

    @Test(
        "a binary hello's protocol of 2^32 or more is 108; a varint past 2^64 − 1 or not minimal is 101",
        arguments: [
            ("80 80 80 80 10", ErrorCode.invalidValue), ("ff ff ff ff ff ff ff ff ff 01", ErrorCode.invalidValue),
            ("ff ff ff ff ff ff ff ff ff 02", ErrorCode.malformedVarint), ("81 00", ErrorCode.malformedVarint),
        ])
    func binaryHelloProtocolOutOfRange(varint: String, code: ErrorCode) {
        #expect(Self.binaryError(Self.hello(protocol: varint)) == code)
    }

    @Test("a welcome's protocol has the same range: 2^32 − 1 decodes, 2^32 is 108")
    func binaryWelcomeProtocolRange() throws {
        let tail = "0000000000000000 00 00 00 00 00 00"
        guard case .welcome(let welcome) = try Message(binary: bytes(hex: "01 02 ff ff ff ff 0f \(tail)")) else {
            Issue.record("not a welcome")
            return
        }
        #expect(welcome.protocolVersion == UInt32.max)
        #expect(Self.binaryError("01 02 80 80 80 80 10 \(tail)") == .invalidValue)
    }

    @Test("a JSON hello's protocol is a whole number from 0 to 2^32 − 1; beyond, negative or fractional is 108, a string 111")
    func jsonHelloProtocolRange() throws {
        func hello(_ version: String) -> String {
            #"{"type":"hello","protocol":"# + version
                + ##","document":"a","replica":"00000000000a11ce","user":{"name":"Alice","initials":"A","color":"#e8456bff"}}"##
        }
        for (text, value) in [("0", UInt32(0)), ("4294967295", UInt32.max)] {
            guard case .hello(let decoded) = try Message(json: hello(text)) else {
                Issue.record("\(text): not a hello")
                continue
            }
            #expect(decoded.protocolVersion == value)
        }
        for text in ["4294967296", "-1", "1.5"] { #expect(Self.jsonError(hello(text)) == .invalidValue, "\(text)") }
        #expect(Self.jsonError(hello(#""1""#)) == .wrongType)
    }

    // MARK: Question 1: fit and the document belong to every version (section 6.6)

    @Test("one decoder whatever version a connection agreed: a hello of version 1 and a push setting fit on the document both decode")
    func oneDecoderForEveryVersion() throws {
        guard case .hello(let hello) = try Message(binary: bytes(hex: Self.hello(protocol: "01"))) else {
            Issue.record("not a hello")
            return
        }
        #expect(hello.protocolVersion == 1)
        let background = "01 03 07 02 \(Self.aliceReplica) 0000000000000000 01 01 00 01 22 00 15 02"
        #expect(
            try Message(binary: bytes(hex: background))
                == .push(Push(batch: 7, ops: [op(1, alice, .set(.document, .fit(.stretch)))])))
    }

    // MARK: Helpers

    static func binaryError(_ hex: String) -> ErrorCode? {
        do {
            _ = try Message(binary: bytes(hex: hex))
            return nil
        } catch {
            return error.code
        }
    }

    static func binaryBatch(_ hex: String) -> UInt64? {
        do {
            _ = try Message(binary: bytes(hex: hex))
            return nil
        } catch {
            return error.batch
        }
    }

    static func jsonError(_ text: String) -> ErrorCode? {
        do {
            _ = try Message(json: text)
            return nil
        } catch {
            return error.code
        }
    }
}
