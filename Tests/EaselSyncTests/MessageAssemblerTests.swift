import EaselModel
import EaselSync
import EaselTestSupport
import Testing

/// WebSocket messages put together from the pieces a socket delivers, as
/// the server's connections and the client's transport both receive them.
@Suite("Message assembler")
struct MessageAssemblerTests {
    @Test("a message in one piece comes out whole at once")
    func onePiece() {
        var assembler = MessageAssembler(limit: 16)
        #expect(assembler.add([1, 2, 3], isLast: true) == .message([1, 2, 3]))
        #expect(assembler.add([], isLast: true) == .message([]), "an empty message is a message")
        #expect(assembler.pendingCount == 0)
    }

    @Test("pieces are held until the last, then joined in order, and the next message starts empty")
    func piecesJoin() {
        var assembler = MessageAssembler(limit: 16)
        #expect(assembler.add([1, 2], isLast: false) == .incomplete)
        #expect(assembler.add([], isLast: false) == .incomplete, "an empty piece changes nothing")
        #expect(assembler.add([3], isLast: false) == .incomplete)
        #expect(assembler.pendingCount == 3)
        #expect(assembler.add([4, 5], isLast: true) == .message([1, 2, 3, 4, 5]))
        #expect(assembler.add([9], isLast: true) == .message([9]))
    }

    @Test("a message of exactly the limit passes; one byte more is refused as soon as it arrives, and dropped")
    func limitHolds() {
        var assembler = MessageAssembler(limit: 4)
        #expect(assembler.add([1, 2, 3, 4], isLast: true) == .message([1, 2, 3, 4]))
        #expect(assembler.add([1, 2, 3], isLast: false) == .incomplete)
        #expect(assembler.add([4, 5], isLast: false) == .tooLarge, "refused before the message ends")
        #expect(assembler.pendingCount == 0, "nothing of it is kept")
        #expect(assembler.add([7], isLast: true) == .message([7]), "the next message starts fresh")
        #expect(assembler.add([1, 2, 3, 4, 5], isLast: true) == .tooLarge, "one piece over the limit too")
    }

    @Test("whatever the cuts, a message comes out as it was sent (200 seeded messages)")
    func anySplitReassembles() {
        var random = SplitMix64(seed: 0xA55E)
        for _ in 0..<200 {
            let length = Int(random.next() % 300)
            let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var assembler = MessageAssembler(limit: 300)
            var start = 0
            var outcome = MessageAssembler.Outcome.incomplete
            repeat {
                let end = min(length, start + Int(random.next() % 40))
                outcome = assembler.add(Array(message[start..<end]), isLast: end == length)
                start = end
            } while start < length
            if length == 0 { outcome = assembler.add([], isLast: true) }
            #expect(outcome == .message(message))
        }
    }
}
