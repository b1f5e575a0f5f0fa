import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@Suite("Edges of the codecs")
struct EdgeTests {
    @Test func jsonKeysCompareByBytesNotByUnicodeEquivalence() throws {
        // é and e + combining acute are two different keys to JSON.
        let twoKeys = #"{"type":"ping","nonce":"1","\u00e9":1,"e\u0301":2}"#
        #expect(try Message(json: twoKeys) == .ping(nonce: 1))
        // A Kelvin sign is not a K: this is an unknown field, not zKey.
        let kelvin =
            #"{"type":"push","batch":"1","ops":[{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"set","entity":"1@00000000000a11ce","fields":{"z\u212Aey":"a0"}}]}"#
        #expect(code(ofJSON: kelvin) == .unknownTag)
    }

    @Test func aJSONIntegerWrittenAsADecimalOrWithAnExponentReadsAsThatInteger() throws {
        for count in ["2", "2.0", "2e0", "0.2e1"] {
            let text = #"{"type":"ack","batch":"1","first":"3","count":"# + count + "}"
            #expect(try Message(json: text) == .ack(Ack(batch: 1, first: 3, count: 2)), "count \(count)")
        }
        #expect(code(ofJSON: #"{"type":"ack","batch":"1","first":"3","count":2.5}"#) == .invalidValue)
        #expect(code(ofJSON: #"{"type":"ack","batch":"1","first":"3","count":-1}"#) == .invalidValue)
    }

    @Test func anObjectWithTensOfThousandsOfUnknownKeysIsIgnoredKeyByKey() throws {
        let keys = (0..<50_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        #expect(try Message(json: #"{"type":"ping","nonce":"1","# + keys + "}") == .ping(nonce: 1))
    }

    @Test func aWelcomeWhosePeersHaveEmptyNamesRoundTrips() throws {
        let peer = Presence(replica: bob, user: UserInfo(name: "", initials: "", color: .black))
        let welcome = Message.welcome(
            Welcome(epoch: Epoch(rawValue: 1), position: 0, content: .tail([]), peers: [peer]))
        #expect(try Message(binary: welcome.binaryEncoded()) == welcome)
    }

    @Test func validateRefusesWhatAPeerWouldRefuse() {
        let user = UserInfo(name: "A", initials: "A", color: .black)
        let star = EntityID(opID(1, alice))
        let cases: [(Message, ErrorCode)] = [
            (.presence(Presence(replica: alice, user: user, cursor: Point(x: .nan, y: 0))), .nonFiniteNumber),
            (
                .presence(Presence(replica: alice, user: user, selection: Array(repeating: star, count: 2000))),
                .tooLarge
            ),
            (.push(Push(batch: 1, ops: [])), .invalidValue),
            (
                .hello(
                    Hello(
                        document: ValidVectors.document("d"), replica: alice,
                        token: String(repeating: "t", count: 10_000),
                        user: user)), .tooLarge
            ),
        ]
        for (message, expected) in cases {
            do {
                try message.validate()
                Issue.record("\(message.type) passed")
            } catch {
                #expect(error.code == expected, "\(message.type): \(error)")
            }
        }
        for (name, message) in ValidVectors.all {
            #expect(throws: Never.self, "\(name)") { try message.validate() }
        }
    }

    @Test func aNonFiniteFloatIsWrittenAsNullSoTheJSONStillParses() {
        let user = UserInfo(name: "A", initials: "A", color: .black)
        let bytes = Message.presence(Presence(replica: alice, user: user, cursor: Point(x: .infinity, y: 0)))
            .jsonEncoded()
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""cursor":{"x":null,"y":0.0}"#))
        #expect(code(ofJSON: String(decoding: bytes, as: UTF8.self)) == .wrongType)
    }

    @Test(arguments: [("1.0", true), ("1e2", true), ("-0", true), ("1.5", false), ("-1", false), ("1e10", false)])
    func jsonIntegersMayBeWrittenAsAnyNumberWithAWholeValue(number: String, accepted: Bool) {
        let ack = #"{"type":"ack","batch":"1","first":"1","count":"# + number + "}"
        #expect((code(ofJSON: ack) == nil) == accepted, "\(number)")
        if !accepted { #expect(code(ofJSON: ack) == .invalidValue) }
    }

    @Test func errorDetailsStayShortWhateverTheInputQuotes() {
        let longType = #"{"type":""# + String(repeating: "x", count: 100_000) + #""}"#
        do {
            _ = try Message(json: longType)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .unknownMessageType)
            #expect(error.detail.utf8.count <= 256)
        }
    }

    private func code(ofJSON text: String) -> ErrorCode? {
        do {
            _ = try Message(json: text)
            return nil
        } catch {
            return error.code
        }
    }
}
