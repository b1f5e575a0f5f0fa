import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// Character ops reach connections of version 4 as they are, and reach a
/// connection of an older version as writes of whole strings, in ops and
/// in welcomes; a text whose characters merge is not written whole.
@Suite struct TextVersionTests {
    static let note = EntityID(opID(1, alice))

    static func insert(_ counter: UInt64, after left: OpID?, _ text: String) -> Op {
        op(counter, alice, .insertText(note, TextInsertion(originLeft: left, originRight: nil, scalars: Array(text.unicodeScalars))))
    }

    static func ops(in transcript: Transcript, to connection: ConnectionID) -> [Op] {
        transcript.messages(to: connection).flatMap { message -> [Op] in
            if case .ops(let ops) = message { return ops.map(\.op) }
            return []
        }
    }

    @Test func aConnectionOfVersionThreeReadsCharacterOpsAsTheWholeStringAndOneOfVersionFourAsThemselves() throws {
        let harness = try ServerHarness()
        let (writer, _) = harness.join(alice, as: "alice", protocol: WireProtocol.version)
        let (current, _) = harness.join(bob, as: "bob", protocol: WireProtocol.version)
        let (older, _) = harness.join(carol, as: "carol", protocol: WireProtocol.textVersion - 1)
        // "Hi" is alice's characters 1 and 2; then she types on twice.
        let transcript = harness.pushCommitted(
            [op(1, alice, .create(.text, [.text("Hi")])), Self.insert(3, after: opID(2, alice), " there"),
             Self.insert(9, after: opID(8, alice), "!")],
            from: writer)
        let toCurrent = Self.ops(in: transcript, to: current)
        #expect(toCurrent.filter { if case .insertText = $0.action { true } else { false } }.count == 2)
        let toOlder = Self.ops(in: transcript, to: older)
        #expect(toOlder.allSatisfy { if case .insertText = $0.action { false } else { true } })
        let writes = toOlder.compactMap { op -> String? in
            if case .set(Self.note, .text(let string)) = op.action { string } else { nil }
        }
        #expect(writes == ["Hi there!"], "one write of the text as it now reads")
        var document = Document()
        for op in toOlder { document.apply(op) }
        #expect(document.textString(of: Self.note) == "Hi there!")

        // A version-3 joiner's welcome holds the string too.
        let (late, joined) = harness.join(ReplicaID(rawValue: 0xDA7E), as: "dave", protocol: WireProtocol.textVersion - 1)
        guard case .snapshot(let snapshot)? = joined.welcome(to: late)?.content else {
            Issue.record("no snapshot welcome")
            return
        }
        #expect(Document(applying: snapshot).textString(of: Self.note) == "Hi there!")
        #expect(snapshot.allSatisfy { !$0.isCharacterOp })

        // A version-4 joiner's welcome holds the text's snapshot.
        let (recent, welcomed) = harness.join(ReplicaID(rawValue: 0xE11E), as: "erin", protocol: WireProtocol.version)
        guard case .snapshot(let current4)? = welcomed.welcome(to: recent)?.content else {
            Issue.record("no snapshot welcome")
            return
        }
        #expect(current4.contains { if case .textSnapshot = $0.action { true } else { false } })
        #expect(Document(applying: current4).textString(of: Self.note) == "Hi there!")
    }

    @Test func aTextWhoseCharactersMergeIsNotWrittenWholeByAnyVersion() throws {
        let harness = try ServerHarness()
        let (writer, _) = harness.join(alice, as: "alice", protocol: WireProtocol.version)
        let (older, _) = harness.join(carol, as: "carol", protocol: WireProtocol.textVersion - 1)
        _ = harness.pushCommitted(
            [op(1, alice, .create(.text, [.text("Hi")])), Self.insert(3, after: opID(2, alice), "!")], from: writer)
        let refused = harness.push([op(20, carol, .set(Self.note, .text("Bye")))], batch: 9, from: older)
        #expect(refused.errors(to: older).map(\.code) == [.textMergesCharacters])
        // A text never edited a character at a time is written whole as before.
        _ = harness.pushCommitted([op(30, alice, .create(.text, [.text("old")]))], from: writer)
        let fine = harness.push([op(40, carol, .set(EntityID(opID(30, alice)), .text("still a string")))], from: older)
        #expect(fine.errors(to: older).isEmpty)
    }

    @Test func aPushedTextSnapshotIsRefusedAndChangesNothing() throws {
        let harness = try ServerHarness()
        let (writer, _) = harness.join(alice, as: "alice", protocol: WireProtocol.version)
        _ = harness.pushCommitted([op(1, alice, .create(.text, [.text("Hi")])), Self.insert(3, after: opID(2, alice), "!")], from: writer)
        let forged = TextSnapshot(
            runs: [.init(first: opID(10, alice), count: 3, originLeft: nil, originRight: nil, isDeleted: false)],
            scalars: Array("Bye".unicodeScalars))
        let refused = harness.push([op(10, alice, .textSnapshot(Self.note, forged))], batch: 4, from: writer)
        #expect(refused.errors(to: writer).map(\.code) == [.invalidValue])
        let (late, joined) = harness.join(ReplicaID(rawValue: 0xF00), as: "frank", protocol: WireProtocol.version)
        guard case .snapshot(let state)? = joined.welcome(to: late)?.content else {
            Issue.record("no snapshot welcome")
            return
        }
        #expect(Document(applying: state).textString(of: Self.note) == "Hi!")
    }

    @Test func charactersTypedInOnePushOrWhileEarlierOnesAreStoredAreTheirsToTypeOn() throws {
        let harness = try ServerHarness()
        let (writer, _) = harness.join(alice, as: "alice", protocol: WireProtocol.version)
        // Nothing is committed between the pushes: each types on from
        // characters still pending.
        _ = harness.push([op(1, alice, .create(.text, [.text("a")])), Self.insert(2, after: opID(1, alice), "b")], from: writer)
        let second = harness.push([Self.insert(3, after: opID(2, alice), "c")], batch: 2, from: writer)
        #expect(second.errors(to: writer).isEmpty)
        let deleting = harness.push(
            [op(4, alice, .deleteText(Self.note, [CharacterRun(first: opID(1, alice), count: 3)]))], batch: 3, from: writer)
        #expect(deleting.errors(to: writer).isEmpty)
        _ = harness.commit()
    }
}

@Suite struct ClientTextVersionTests {
    let start = Timestamp(milliseconds: 0)

    /// A client welcomed in `version` into a document holding one text.
    func editedText(welcomedIn version: UInt32) throws -> [Op] {
        var client = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob, at: start)
        client.connectionOpened(at: start)
        let create = op(1, alice, .create(.text, [.text("Hi")]))
        client.receive(
            .welcome(
                Welcome(
                    protocolVersion: version, epoch: Epoch(rawValue: 1), position: 1, content: .snapshot([create]),
                    peers: [])),
            at: start)
        _ = client.takeOutputs()
        try client.perform(.editText(EntityID(opID(1, alice)), "Hi there"), at: start + 10)
        return client.takeOutputs().flatMap { output -> [Op] in
            if case .send(.push(let push)) = output { return push.ops }
            return []
        }
    }

    @Test func aClientWelcomedInVersionFourTypesCharacterOpsAndInVersionThreeWritesTheWholeString() throws {
        let current = try editedText(welcomedIn: WireProtocol.version)
        #expect(!current.isEmpty && current.allSatisfy { $0.textOp != nil })
        let older = try editedText(welcomedIn: WireProtocol.textVersion - 1)
        #expect(older.map(\.action) == [.set(EntityID(opID(1, alice)), .text("Hi there"))])
    }
}
