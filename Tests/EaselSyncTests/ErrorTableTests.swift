import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// Protocol/README.md section 7 says, per error code, whether Easel's
/// server sends it fatal and which close follows. This reads that table and
/// drives the sans-IO server into each code, so the spec and the server
/// cannot drift apart.
@Suite("The spec's error table")
struct ErrorTableTests {
    typealias F = RoomFixtures

    struct Row {
        var code: ErrorCode
        var fatal: Bool
        var close: CloseCode?
    }

    /// The rows of section 7's table whose fatal column is plain yes or no.
    static func specRows() throws -> [Row] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Protocol/README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let section = text.range(of: "## 7. Errors"), let end = text.range(of: "WebSocket close codes")
        else { throw SpecError.missing("section 7") }
        return text[section.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, let code = UInt16(cells[0]) else { return nil }
            let fatal: Bool
            if cells[2].hasPrefix("**yes**") {
                fatal = true
            } else if cells[2].hasPrefix("no") {
                fatal = false
            } else {
                return nil
            }
            let close = cells[3].split(separator: " ").first.flatMap { UInt16($0) }.map(CloseCode.init(rawValue:))
            return Row(code: ErrorCode(rawValue: code), fatal: fatal, close: close)
        }
    }

    enum SpecError: Error {
        case missing(String)
    }

    @Test("every code the spec's table lists is sent as fatal or not, with the close, as the table says")
    func theServerSendsEveryCodeAsTheTableSays() throws {
        let rows = try Self.specRows()
        #expect(rows.count == ErrorCode.named.count - 1, "every code but 500 (never sent) has a plain row")
        // Sent by the libwebsockets host, not the sans-IO server; ServeTests
        // checks them over real sockets.
        let hostOnly: Set<ErrorCode> = [.shuttingDown]
        for row in rows where !hostOnly.contains(row.code) {
            let (connection, transcript) = try Self.provoke(row.code)
            let errors = transcript.errors(to: connection).filter { $0.code == row.code }
            guard let first = errors.first else {
                Issue.record("\(row.code): not provoked; got \(transcript.errors(to: connection).map(\.code))")
                continue
            }
            #expect(first.fatal == row.fatal, "\(row.code): fatal is \(first.fatal), the spec says \(row.fatal)")
            #expect(
                transcript.closes(of: connection).first == row.close,
                "\(row.code): closed with \(String(describing: transcript.closes(of: connection).first))")
        }
    }

    @Test(
        "a connection refused 16 times at once may go on; the 17th refusal is followed by the same code, fatal, and close 4001"
    )
    func theRefusalBudgetIsSixteenAtOnceThenTheSeventeenthCloses() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        var errors: [ErrorMessage] = []
        var closes: [CloseCode] = []
        for _ in 0..<30 where closes.isEmpty {
            let transcript = harness.refuse(DecodeError(.invalidValue, "bad"), from: connection)
            errors += transcript.errors(to: connection)
            closes += transcript.closes(of: connection)
        }
        #expect(errors.count == 18)
        #expect(errors.prefix(17).allSatisfy { $0.code == .invalidValue && !$0.fatal })
        #expect(errors.last?.code == .invalidValue && errors.last?.fatal == true)
        #expect(closes == [.tooManyInvalid])
    }

    /// Puts a connection in the situation the spec names for `code`.
    static func provoke(_ code: ErrorCode) throws -> (ConnectionID, Transcript) {
        switch code.rawValue {
        case 100...111:
            let harness = try ServerHarness()
            let (connection, _) = harness.join(alice, as: "alice")
            return (connection, harness.refuse(DecodeError(code, "as the decoder says"), from: connection))
        case 200:
            let harness = try ServerHarness()
            let connection = harness.connect()
            return (connection, harness.send(.ping(nonce: 1), from: connection))
        case 201:
            let harness = try ServerHarness()
            let (connection, _) = harness.join(alice, as: "alice")
            return (connection, harness.send(harness.hello(alice, as: "alice"), from: connection))
        case 202:
            let harness = try ServerHarness()
            let connection = harness.connect()
            return (connection, harness.send(harness.hello(alice, as: "alice", protocol: 0), from: connection))
        case 203...209:
            let harness = try ServerHarness()
            let (connection, _) = harness.join(alice, as: "alice")
            let (bobConnection, _) = harness.join(bob, as: "bob")
            harness.pushCommitted([F.createStar(), F.createStroke(), F.append(3, at: 0)], from: connection)
            let (pusher, ops): (ConnectionID, [Op]) =
                switch code {
                case .wrongReplica: (connection, [F.moveStar(10, by: bob)])
                case .opConflict: (connection, [op(1, alice, .create(.emoji, [.character("🌙")]))])
                case .counterTooFar: (connection, [F.moveStar(3 + (1 << 24) + 1)])
                case .unknownEntity: (connection, [op(10, alice, .set(EntityID(opID(99, carol)), .x(1)))])
                case .fieldNotInKind: (connection, [op(10, alice, .set(F.star, .font("Georgia")))])
                case .notStrokeAuthor: (bobConnection, [F.append(10, by: bob, at: 1)])
                default: (connection, [F.append(10, at: 0, x: 7)])
                }
            return (pusher, harness.push(ops, batch: 5, from: pusher))
        case 210...212:
            let harness = try ServerHarness()
            let (connection, _) = harness.join(alice, as: "alice")
            // A text "ab" (alice's characters 1 and 2), typed into once.
            let note = EntityID(opID(1, alice))
            func insert(_ counter: UInt64, after left: OpID?, _ text: String) -> Op {
                op(
                    counter, alice,
                    .insertText(
                        note, TextInsertion(originLeft: left, originRight: nil, scalars: Array(text.unicodeScalars))))
            }
            harness.pushCommitted(
                [op(1, alice, .create(.text, [.text("ab")])), insert(3, after: opID(2, alice), "c")], from: connection)
            let long = String(repeating: "x", count: ModelLimits.scalarsPerInsert)
            let ops: [Op] =
                switch code {
                case .unknownCharacter: [insert(10, after: opID(9, carol), "d")]
                case .textTooLong:
                    (0..<(ModelLimits.charactersPerText / ModelLimits.scalarsPerInsert)).map { index in
                        insert(10 + UInt64(index * ModelLimits.scalarsPerInsert), after: opID(3, alice), long)
                    }
                default: [op(10, alice, .set(note, .text("whole")))]
                }
            return (connection, harness.push(ops, batch: 5, from: connection))
        case 213:
            var configuration = ServerConfiguration()
            configuration.limits.entitiesPerDocument = 1
            let harness = try ServerHarness(configuration: configuration)
            let (connection, _) = harness.join(alice, as: "alice")
            harness.pushCommitted([F.createStar()], from: connection)
            return (
                connection,
                harness.push([op(10, alice, .create(.emoji, [.character("🌙")]))], batch: 5, from: connection)
            )
        case 300...303:
            let harness = try ServerHarness(authenticate: { hello, _ in
                guard let token = hello.token, let refused = UInt16(token) else {
                    return .success(ConnectionIdentity(user: "vic", role: hello.token == "view" ? .view : .edit))
                }
                return .failure(AuthenticationRefusal(code: ErrorCode(rawValue: refused), message: "refused"))
            })
            let connection = harness.connect()
            let token = code == .readOnly ? "view" : String(code.rawValue)
            let hello = Hello(document: harness.document, replica: alice, token: token, user: ServerHarness.user("vic"))
            let joined = harness.send(.hello(hello), from: connection)
            guard code == .readOnly else { return (connection, joined) }
            return (connection, harness.push([F.createStar()], from: connection))
        case 304:
            let harness = try ServerHarness()
            _ = harness.join(alice, as: "alice")
            return harness.join(alice, as: "mallory")
        case 305:
            let harness = try ServerHarness()
            let connection = harness.connect(path: try DocumentName("boards/other"))
            return (connection, harness.send(harness.hello(alice, as: "alice"), from: connection))
        case 400:
            var configuration = ServerConfiguration()
            configuration.limits.pushesPerSecond = 1
            let harness = try ServerHarness(configuration: configuration)
            let (connection, _) = harness.join(alice, as: "alice")
            var transcript = Transcript()
            for counter in 1...3 {
                transcript.outputs +=
                    harness.push([F.createStar(UInt64(counter))], batch: UInt64(counter), from: connection).outputs
            }
            return (connection, transcript)
        case 401, 402:
            var configuration = ServerConfiguration()
            if code == .roomFull {
                configuration.limits.connectionsPerRoom = 1
            } else {
                configuration.limits.connections = 1
            }
            let harness = try ServerHarness(configuration: configuration)
            _ = harness.join(alice, as: "alice")
            return harness.join(bob, as: "bob")
        case 501, 503:
            let harness = try ServerHarness()
            let (connection, _) = harness.join(alice, as: "alice")
            harness.storage.failure =
                code == .moved
                ? StorageFailure(.moved(to: "node2"), "node2 holds the lease")
                : StorageFailure(.unavailable, "disk full")
            harness.push([F.createStar()], from: connection)
            return (connection, harness.commit())
        default:
            throw SpecError.missing("a way to provoke \(code)")
        }
    }
}
