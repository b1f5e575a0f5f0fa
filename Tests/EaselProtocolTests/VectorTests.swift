import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@Suite("Golden vectors")
struct VectorTests {
    @Test(arguments: WireEncoding.allCases)
    func encodingEveryValidVectorGivesExactlyItsBytes(encoding: WireEncoding) throws {
        for (name, message) in ValidVectors.all {
            let golden = try VectorFiles.message(VectorFiles.validPath(name, encoding))
            let encoded = encoding == .binary ? message.binaryEncoded() : message.jsonEncoded()
            #expect(encoded == golden, "\(name) (\(encoding)): encoding differs from its golden vector")
        }
    }

    @Test(arguments: WireEncoding.allCases)
    func decodingEveryValidVectorGivesItsMessageBack(encoding: WireEncoding) throws {
        for (name, message) in ValidVectors.all {
            let golden = try VectorFiles.message(VectorFiles.validPath(name, encoding))
            let decoded = encoding == .binary ? try Message(binary: golden) : try Message(json: golden)
            #expect(decoded == message, "\(name) (\(encoding))")
        }
    }

    @Test func everyInvalidVectorGivesItsErrorCode() throws {
        for vector in InvalidVectors.all {
            let bytes = try VectorFiles.message(VectorFiles.invalidPath(vector))
            #expect(bytes == vector.bytes, "\(vector.name): the file differs from the catalog")
            do {
                let message = vector.encoding == .binary ? try Message(binary: bytes) : try Message(json: bytes)
                Issue.record("\(vector.name) decoded to \(message)")
            } catch {
                #expect(error.code == vector.code, "\(vector.name): \(error)")
                #expect(error.batch == vector.batch, "\(vector.name): the refusal names batch \(String(describing: error.batch))")
            }
        }
    }

    @Test func readingOpsAloneGivesAnOpsMessagesOpsAndRefusesWhatDecodingRefuses() throws {
        var opsMessages = 0
        for (name, message) in ValidVectors.all {
            let golden = try VectorFiles.message(VectorFiles.validPath(name, .binary))
            if case .ops(let positioned) = message {
                opsMessages += 1
                #expect(try Message.ops(binary: golden) == positioned.map(\.op), "\(name)")
            } else {
                #expect(try Message.ops(binary: golden) == nil, "\(name): not an ops message")
            }
        }
        #expect(opsMessages > 0)
        for vector in InvalidVectors.all where vector.encoding == .binary {
            let bytes = try VectorFiles.message(VectorFiles.invalidPath(vector))
            guard bytes.count > 1, bytes[1] == MessageType.ops.rawValue else { continue }
            #expect(throws: DecodeError.self, "\(vector.name)") { try Message.ops(binary: bytes) }
            do { _ = try Message.ops(binary: bytes) } catch { #expect(error.code == vector.code, "\(vector.name): \(error)") }
        }
    }

    @Test func theIndexListsEveryVectorFileAndNothingElse() throws {
        let index = try JSONSerialization.jsonObject(with: Data(try VectorFiles.read("index.json"))) as? [String: Any]
        let valid = try #require(index?["valid"] as? [[String: Any]])
        let invalid = try #require(index?["invalid"] as? [[String: Any]])
        let listed = Set(valid.flatMap { [$0["binary"], $0["json"]] }.compactMap { $0 as? String })
            .union(invalid.compactMap { $0["file"] as? String })
        var onDisk: Set<String> = []
        for folder in ["valid", "invalid"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: VectorFiles.root.appendingPathComponent(folder).path)
            onDisk.formUnion(names.map { "\(folder)/\($0)" })
        }
        #expect(listed == onDisk)
        #expect(valid.count == ValidVectors.all.count)
        #expect(invalid.count == InvalidVectors.all.count)
    }

    @Test func theVectorsCoverEveryMessageTypeEveryOpKindAndEveryField() {
        let messages = ValidVectors.all.map(\.message)
        #expect(Set(messages.map(\.type)) == Set(MessageType.allCases))
        let ops = messages.flatMap { message -> [Op] in
            if case .push(let push) = message { return push.ops }
            if case .welcome(let welcome) = message, case .snapshot(let ops) = welcome.content { return ops }
            return []
        }
        #expect(
            Set(ops.map { "\($0.action)".prefix { $0 != "(" } })
                == ["create", "set", "delete", "restore", "append", "insertText", "deleteText", "textSnapshot"])
        let fields = Set(
            ops.flatMap { op -> [FieldID] in
                switch op.action {
                case .create(_, let fields): fields.map(\.id)
                case .set(_, let field): [field.id]
                default: []
                }
            })
        #expect(fields == Set(FieldID.allCases))
        #expect(
            Set(ops.compactMap { if case .create(let kind, _) = $0.action { kind } else { nil } })
                == Set(EntityKind.allCases))
    }

    @Test func theStateHashFixtureIsPinnedInBothEncodings() throws {
        let document = Document(applying: HashFixture.ops)
        #expect(try VectorFiles.message("state-hash/canonical.hex") == document.canonicalEncoding)
        #expect(try Message(binary: VectorFiles.message("state-hash/ops.hex")) == VectorFiles.stateHashOps)
        #expect(try Message(json: VectorFiles.message("state-hash/ops.json")) == VectorFiles.stateHashOps)
        #expect(document.stateHash.hex == "5773816aef0ff8e7")
    }
}
