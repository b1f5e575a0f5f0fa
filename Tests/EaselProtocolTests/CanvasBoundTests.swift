import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

/// The canvas's edge binds pushes only: what a server stores or sends may
/// hold positions written before the bound, and must still load.
@Suite("The canvas's edge on the wire")
struct CanvasBoundTests {
    let far = op(2, alice, .create(.emoji, [.character("🛸"), .x(2_000_000), .y(-3_000_000)]))

    @Test(arguments: WireEncoding.allCases)
    func aPushBeyondTheEdgeIsRefusedWith108NamingItsBatch(encoding: WireEncoding) throws {
        let push = Message.push(Push(batch: 9, ops: [far]))
        let bytes = encoding == .binary ? push.binaryEncoded() : push.jsonEncoded()
        do {
            _ = encoding == .binary ? try Message(binary: bytes) : try Message(json: bytes)
            Issue.record("a push beyond the edge was read")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.batch == 9)
        }
    }

    @Test(arguments: WireEncoding.allCases)
    func opsAndStoredBatchesBeyondTheEdgeStillLoad(encoding: WireEncoding) throws {
        let ops = Message.ops([PositionedOp(position: 1, op: far)])
        let bytes = encoding == .binary ? ops.binaryEncoded() : ops.jsonEncoded()
        #expect(try (encoding == .binary ? Message(binary: bytes) : Message(json: bytes)) == ops)
        #expect(try OpBatchCoding.decode(OpBatchCoding.encode([far])) == [far])
    }
}
