import EaselModel
import EaselProtocol
import EaselTestSupport

/// An input every decoder must refuse, and the code it must refuse it with.
struct InvalidVector {
    var name: String
    var encoding: WireEncoding
    var bytes: [UInt8]
    var code: ErrorCode
    /// The batch the refusal must name: set for a push whose batch number
    /// the decoder read before it found the fault.
    var batch: UInt64?
    var why: String
}

/// The golden invalid inputs (`Protocol/vectors/invalid/`), written out
/// byte by byte so each shows the one thing wrong with it.
enum InvalidVectors {
    static var all: [InvalidVector] { binary + json }

    /// `01 03 07`: version 1, push, batch 7; then one replica (alice).
    private static let pushHead = "01 03 07 01 ce110a0000000000"
    /// …and a one-entry entity table (alice's counter 1), then one op.
    private static let pushOneEntity = pushHead + " 01 00 01 01"
    private static let pushNoEntity = pushHead + " 00 01"
    /// An erased entity's transform: at the origin, scale 1, not turned.
    private static let erasedAtOrigin = " 00000000 00000000 0000803f 00000000"
    private static let helloHead = "01 01 01 06 736b65746368"  // protocol 1, document "sketch"
    private static let aliceUser = "05 416c696365 01 41 e8456bff"

    static var binary: [InvalidVector] {
        [
            bin("empty", "", .truncated, "no bytes at all"),
            bin(
                "truncated-push", pushOneEntity + " 32 04 00 01 00 00 48", .truncated,
                "the float of x = 12.5 lacks its last byte"),
            bin("varint-too-long", "01 09 ff ff ff ff ff ff ff ff ff ff 01", .malformedVarint, "an 11-byte varint"),
            bin(
                "varint-above-64-bits", "01 09 ff ff ff ff ff ff ff ff ff 02", .malformedVarint,
                "the tenth byte carries bits above 2^63"),
            bin("varint-not-minimal", "01 09 80 00", .malformedVarint, "zero written in two bytes"),
            bin("trailing-bytes", "01 09 2a 00", .trailingBytes, "a byte after a ping's nonce"),
            bin("wire-version-2", "02 09 2a", .unsupportedWireVersion, "frame layout 2 (both protocol versions use layout 1)"),
            bin("unknown-message-tag", "01 0b", .unknownMessageType, "message tag 11"),
            bin("unknown-action", pushOneEntity + " 20 00", .unknownTag, "op action 0"),
            bin("insert-no-characters", pushOneEntity + " 26 00 00 00", .invalidValue, "an insert typing nothing"),
            bin("insert-unknown-flag", pushOneEntity + " 26 00 08 01 61", .unknownTag, "insert flag bit 3"),
            bin(
                "insert-types-on-from-nothing", pushOneEntity + " 26 00 05 01 61", .invalidValue,
                "typing on at counter 1, where no character comes before"),
            bin("insert-not-utf8", pushOneEntity + " 26 00 00 01 ff", .invalidValue, "characters that are not UTF-8"),
            bin(
                "insert-origin-replica-index", pushOneEntity + " 26 00 01 05 01 01 61", .invalidValue,
                "a left origin naming replica 5 of a table of 1"),
            bin("delete-no-runs", pushOneEntity + " 27 00 00", .invalidValue, "a delete naming no characters"),
            bin(
                "snapshot-unknown-action", pushOneEntity + " 20 09 00", .unknownTag,
                "action 0 in the header, and tag 9 in the body, which no action has"),
            bin(
                "snapshot-first-run-goes-on", pushOneEntity + " 20 08 00 01 00 01 00", .unknownTag,
                "a text snapshot whose first run goes on from a run before it, which it lacks"),
            bin(
                "snapshot-characters-miscounted", pushOneEntity + " 20 08 00 01 02 02 02 01 61", .invalidValue,
                "a text snapshot of one run of 2 characters, not deleted, and 1 scalar"),
            bin("delete-empty-run", pushOneEntity + " 27 00 01 00 01 00", .invalidValue, "a run of 0 characters"),
            bin("reserved-header-bit", pushOneEntity + " a3 00", .unknownTag, "header bit 7 set"),
            bin("transaction-mode-3", pushOneEntity + " 63 00", .unknownTag, "transaction mode 3"),
            bin("unknown-field-tag", pushOneEntity + " 22 00 17 00000000", .unknownTag, "field tag 23"),
            bin(
                "erases-entity-twice",
                pushOneEntity + " 22 00 16 01 ce110a0000000000 02" + " 00 02" + erasedAtOrigin + " 00 02"
                    + erasedAtOrigin, .invalidValue, "an eraser naming entity 2@…a11ce twice"),
            bin(
                "erases-counter-zero", pushOneEntity + " 22 00 16 01 ce110a0000000000 01 00 00" + erasedAtOrigin,
                .invalidValue, "an erased entity with counter 0"),
            bin(
                "erases-replica-index", pushOneEntity + " 22 00 16 01 ce110a0000000000 01 01 02" + erasedAtOrigin,
                .invalidValue, "an erased entity's replica index past its own table"),
            bin(
                "erases-over-limit", pushOneEntity + " 22 00 16 00 8102", .invalidValue,
                "257 erased entities, one over the limit"),
            bin(
                "erases-infinite-scale",
                pushOneEntity + " 22 00 16 01 ce110a0000000000 01 00 02 00000000 00000000 0000807f 00000000",
                .nonFiniteNumber, "an erased entity's scale is +infinity"),
            bin(
                "document-deleted", pushHead.replacingOccurrences(of: "01 ce110a0000000000", with: "02 ce110a0000000000 0000000000000000") + " 01 01 00 01 23 00",
                .invalidValue, "a delete of the document itself (entity 0@0), which is only ever set"),
            bin(
                "document-field-x", pushHead.replacingOccurrences(of: "01 ce110a0000000000", with: "02 ce110a0000000000 0000000000000000") + " 01 01 00 01 22 00 01 00000000",
                .invalidValue, "x set on the document, which has fill, blob, width, height and fit"),
            bin("unknown-shape", pushNoEntity + " 21 02 01 11 09", .unknownTag, "shape kind 9"),
            bin("unknown-entity-kind", pushNoEntity + " 21 06 00", .unknownTag, "entity kind 6"),
            bin("unknown-hello-flag", helloHead + " ce110a0000000000 04" + aliceUser, .unknownTag, "hello flag bit 2"),
            bin(
                "unknown-force-mode", pushOneEntity + " 25 00 00 01 03 00000000 00000000 00000000", .unknownTag,
                "force mode 3"),
            bin(
                "unknown-presence-flag", "01 06 ce110a0000000000" + aliceUser + " 40 00", .unknownTag,
                "presence flag bit 6"),
            bin(
                "unknown-gesture-kind", "01 06 ce110a0000000000" + aliceUser + " 04 00 05", .unknownTag,
                "gesture kind 5"),
            bin(
                "string-longer-than-input", pushNoEntity + " 21 03 01 0d e807 414243", .lengthExceedsInput,
                "a text of 1000 bytes with 3 left"),
            bin("op-count-longer-than-input", pushHead + " 00 a01f 22", .lengthExceedsInput, "4000 ops in 1 byte"),
            bin(
                "replica-count-longer-than-input", "01 03 07 64 ce110a0000000000", .lengthExceedsInput,
                "100 replicas in 8 bytes"),
            bin("nan", pushOneEntity + " 22 00 01 0000c07f", .nonFiniteNumber, "x = NaN"),
            bin("infinity", pushOneEntity + " 22 00 02 0000807f", .nonFiniteNumber, "y = +infinity"),
            bin(
                "x-beyond-canvas", pushOneEntity + " 22 00 01 0024f449", .invalidValue,
                "x = 2,000,000: an op's positions lie within +-1,000,000"),
            bin("text-not-utf8", pushNoEntity + " 21 03 01 0d 02 fffe", .invalidValue, "text bytes ff fe"),
            bin("entity-counter-zero", pushHead + " 01 00 00 01 23 00", .invalidValue, "an entity with counter 0"),
            bin(
                "entity-index-past-table", pushOneEntity + " 23 01", .invalidValue, "entity index 1 of a 1-entry table"),
            bin(
                "first-op-continues-transaction", pushOneEntity + " 03 00", .invalidValue,
                "transaction mode 0 on the first op"),
            bin("transaction-after-op", pushOneEntity + " 43 00 05 00", .invalidValue, "op 1 in transaction 5"),
            bin("counter-zero", pushOneEntity + " 33 00 00", .invalidValue, "counter delta 0 from 0"),
            bin("bad-zkey", pushOneEntity + " 22 00 05 02 2121", .invalidValue, "zKey \"!!\""),
            bin(
                "bad-document-name", "01 01 01 06 2e2e2f657463 ce110a0000000000 00" + aliceUser, .invalidValue,
                "document \"../etc\""),
            bin("empty-push", pushHead + " 00 00", .invalidValue, "a push of no ops"),
            bin(
                "document-path-escape", "01 01 01 08 612f2e2e2f657463 ce110a0000000000 00" + aliceUser, .invalidValue,
                "document \"a/../etc\""),
            bin("replica-zero", helloHead + " 0000000000000000 00" + aliceUser, .invalidValue, "replica 0 in a hello"),
            bin(
                "duplicate-create-field", pushNoEntity + " 21 01 02 01 00000000 01 00000000", .invalidValue,
                "a create naming x twice"),
            bin("field-not-in-kind", pushNoEntity + " 21 01 01 11 00", .invalidValue, "an emoji with a shape field"),
            bin("append-no-samples", pushOneEntity + " 25 00 00 00", .invalidValue, "an append of 0 samples"),
            bin(
                "position-not-increasing", "01 05 01 ce110a0000000000 01 00 01 02 05 23 00 00 24 00", .invalidValue,
                "a position difference of 0"),
            bin(
                "ops-over-limit", pushOneEntity.dropLast(2) + "8120" + String(repeating: " 23 00", count: 4097),
                .tooLarge, "4097 ops in a push"),
            bin("text-over-limit", pushNoEntity + " 21 03 01 0d 818001 41", .tooLarge, "a text of 16385 bytes"),
            bin("token-over-limit", helloHead + " ce110a0000000000 01 8827 41", .tooLarge, "a token of 5000 bytes"),
            bin(
                "push-trailing-bytes", pushOneEntity + " 32 04 00 01 00004841 00", .trailingBytes,
                "a byte after a push's last op"),
            bin("push-batch-truncated", "01 03 87", .truncated, "the batch varint is cut off: no batch to name"),
        ]
    }

    static var json: [InvalidVector] {
        let op =
            #"{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"set","entity":"1@00000000000a11ce","fields":{"x":1}}"#
        let deep = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        return [
            text("syntax", #"{"type":"ping","nonce":"1""#, .invalidJSON, "a missing }"),
            text("duplicate-key", #"{"type":"ping","nonce":"1","nonce":"2"}"#, .invalidJSON, "nonce twice"),
            text(
                "too-deep", #"{"type":"ping","nonce":"1","extra":"# + deep + "}", .invalidJSON, "17 levels of nesting"),
            text("trailing-text", #"{"type":"ping","nonce":"1"} x"#, .invalidJSON, "text after the object"),
            JSON(
                "not-utf8", Array(#"{"type":"leave","replica":""#.utf8) + [0xFF] + Array(#""}"#.utf8), .invalidJSON,
                "byte ff in a string"),
            text(
                "lone-surrogate", #"{"type":"error","code":500,"fatal":false,"message":"\ud800"}"#, .invalidJSON,
                "a lone surrogate escape"),
            text("batch-as-number", #"{"type":"push","batch":7,"ops":[]}"#, .wrongType, "batch must be a string"),
            text("missing-ops", #"{"type":"push","batch":"7"}"#, .wrongType, "a push without ops"),
            text("idle-as-string", presence(idle: #""no""#), .wrongType, "idle must be a boolean"),
            text(
                "state-hash-upper-case",
                presence(idle: #"false,"state":{"position":"3","hash":"0123456789ABCDEF"}"#), .invalidValue,
                "a state hash in upper-case hex"),
            text(
                "x-as-string", push(op.replacingOccurrences(#""x":1"#, #""x":"12""#)), .wrongType, "x must be a number"),
            text("unknown-type", #"{"type":"shout","nonce":"1"}"#, .unknownMessageType, "message type shout"),
            text(
                "unknown-action", push(op.replacingOccurrences(#""op":"set""#, #""op":"move""#)), .unknownTag, "op move"
            ),
            text(
                "unknown-field", push(op.replacingOccurrences(#""x":1"#, #""opacity":1"#)), .unknownTag, "field opacity"
            ),
            text(
                "unknown-shape", push(op.replacingOccurrences(#""x":1"#, #""shape":"hexagon""#)), .unknownTag,
                "shape hexagon"),
            text(
                "float-overflow", push(op.replacingOccurrences(#""x":1"#, #""x":1e39"#)), .nonFiniteNumber,
                "x = 1e39 is beyond binary32"),
            text(
                "y-beyond-canvas", push(op.replacingOccurrences(#""x":1"#, #""y":-2000000"#)), .invalidValue,
                "y = -2,000,000: an op's positions lie within +-1,000,000"),
            text(
                "counter-zero", push(op.replacingOccurrences(#""id":"2@"#, #""id":"0@"#)), .invalidValue, "op counter 0"
            ),
            text("empty-push", #"{"type":"push","batch":"1","ops":[]}"#, .invalidValue, "a push of no ops"),
            text(
                "snapshot-characters-miscounted",
                push(
                    #"{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"textSnapshot","entity":"1@00000000000a11ce","runs":[{"first":"1@00000000000a11ce","count":2}],"text":"a"}"#
                ),
                .invalidValue, "a text snapshot of one run of 2 characters, not deleted, and 1 scalar"),
            text(
                "insert-without-text",
                push(#"{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"insertText","entity":"1@00000000000a11ce"}"#),
                .wrongType, "an insertText with no text"),
            text(
                "delete-run-of-zero",
                push(
                    #"{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"deleteText","entity":"1@00000000000a11ce","runs":[{"first":"1@00000000000a11ce","count":0}]}"#
                ), .invalidValue, "a run of 0 characters"),
            text("top-level-array", #"[{"type":"ping","nonce":"1"}]"#, .wrongType, "a message that is not an object"),
            text("type-as-number", #"{"type":9,"nonce":"1"}"#, .wrongType, "type must be a string"),
            text(
                "sample-of-five-numbers",
                push(
                    #"{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"append","entity":"1@00000000000a11ce","start":0,"samples":[[1,2,3,4,5]]}"#
                ), .wrongType, "a sample is [x, y, time] or [x, y, time, force]"),
            text(
                "count-not-whole", #"{"type":"ack","batch":"1","first":"1","count":1.5}"#, .invalidValue,
                "count 1.5: an integer field holds whole numbers (1.0 and 1e0 read as 1)"),
            text("leading-zero", #"{"type":"push","batch":"007","ops":[]}"#, .invalidValue, "batch 007"),
            text(
                "uppercase-replica", #"{"type":"leave","replica":"00000000000A11CE"}"#, .invalidValue, "upper-case hex"),
            text(
                "document-field-x", push(op.replacingOccurrences(#""entity":"1@00000000000a11ce""#, #""entity":"document""#)),
                .invalidValue, "x set on the document itself"),
            text(
                "erases-entity-twice",
                push(
                    op.replacingOccurrences(
                        #""x":1"#,
                        #""erases":[{"entity":"2@00000000000a11ce","x":0,"y":0,"scale":1,"rotation":0},"#
                            + #"{"entity":"2@00000000000a11ce","x":5,"y":0,"scale":1,"rotation":0}]"#)),
                .invalidValue, "an eraser naming one entity twice"),
            text(
                "erases-missing-scale",
                push(
                    op.replacingOccurrences(
                        #""x":1"#, #""erases":[{"entity":"2@00000000000a11ce","x":0,"y":0,"rotation":0}]"#)),
                .wrongType, "an erased entity without its scale"),
            text(
                "set-two-fields", push(op.replacingOccurrences(#""x":1"#, #""x":1,"y":2"#)), .invalidValue,
                "a set of two fields"),
            text(
                "token-over-limit",
                #"{"type":"hello","protocol":1,"document":"d","replica":"00000000000a11ce","token":""#
                    + String(repeating: "t", count: 5000)
                    + ##"","user":{"name":"A","initials":"A","color":"#000000ff"}}"##, .tooLarge,
                "a token of 5000 bytes"),
        ]
    }

    private static func presence(idle: String) -> String {
        ##"{"type":"presence","replica":"00000000000a11ce","user":{"name":"A","initials":"A","color":"#000000ff"},"selection":[],"idle":"##
            + idle + "}"
    }

    private static func push(_ op: String) -> String {
        #"{"type":"push","batch":"1","ops":["# + op + "]}"
    }

    private static func bin(_ name: String, _ hex: String, _ code: ErrorCode, _ why: String) -> InvalidVector {
        // Every push here is batch 7 (`01 03 07`): a decoder that read it
        // names it in the refusal.
        let bytes = EaselTestSupport.bytes(hex: hex)
        let batch: UInt64? = bytes.starts(with: [1, 3, 7]) ? 7 : nil
        return InvalidVector(name: "binary-" + name, encoding: .binary, bytes: bytes, code: code, batch: batch, why: why)
    }

    private static func text(_ name: String, _ text: String, _ code: ErrorCode, _ why: String) -> InvalidVector {
        JSON(name, Array(text.utf8), code, why)
    }

    private static func JSON(_ name: String, _ bytes: [UInt8], _ code: ErrorCode, _ why: String) -> InvalidVector {
        InvalidVector(
            name: "json-" + name, encoding: .json, bytes: bytes, code: code, batch: readableBatch(bytes), why: why)
    }

    /// The batch of a JSON push vector whose `batch` member is well formed:
    /// the refusal names it.
    private static func readableBatch(_ bytes: [UInt8]) -> UInt64? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(#"{"type":"push","batch":""#) else { return nil }
        let digits = text.dropFirst(#"{"type":"push","batch":""#.count).prefix { $0 != "\"" }
        guard !digits.hasPrefix("0") else { return nil }
        return UInt64(digits)
    }
}

extension String {
    /// Replaces the one occurrence of `target` (fixtures only: stdlib has no
    /// replacing without Foundation).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        guard let range = firstRange(of: target) else { fatalError("fixture text lacks \(target)") }
        return self[..<range.lowerBound] + replacement + self[range.upperBound...]
    }
}
