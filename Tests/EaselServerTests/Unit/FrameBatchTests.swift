import Testing

@testable import EaselServer

/// The batch's frames against RFC 6455 section 5: the examples of 5.7 and
/// the boundaries of the three length forms.
@Suite struct FrameBatchTests {
    private func framed(_ lengths: [Int], text: Bool = false, capacity: Int = 1 << 20) -> [UInt8] {
        let batch = FrameBatch(capacity: capacity)
        for length in lengths {
            let payload = [UInt8](repeating: 0x61, count: length)
            let fitted = payload.withUnsafeBytes { batch.append($0, text: text) }
            #expect(fitted)
        }
        return Array(batch.frames)
    }

    @Test func anUnmaskedTextFrameMatchesTheRFCsHelloExample() {
        let batch = FrameBatch(capacity: 64)
        let fitted = Array("Hello".utf8).withUnsafeBytes { batch.append($0, text: true) }
        #expect(fitted)
        #expect(Array(batch.frames) == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
    }

    @Test func aCloseFrameCarriesItsStatusCodeBigEndian() {
        let batch = FrameBatch(capacity: 64)
        #expect(batch.appendClose(4001))
        #expect(Array(batch.frames) == [0x88, 0x02, 0x0F, 0xA1])
    }

    @Test func lengthsUpTo125FitInTheSecondByte() {
        #expect(Array(framed([125]).prefix(2)) == [0x82, 125])
        #expect(framed([0]) == [0x82, 0])
    }

    @Test func lengthsFrom126To65535TakeASixteenBitLength() {
        #expect(Array(framed([126]).prefix(4)) == [0x82, 126, 0x00, 126])
        #expect(Array(framed([256]).prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(framed([65_535]).prefix(4)) == [0x82, 126, 0xFF, 0xFF])
    }

    @Test func lengthsFrom65536TakeASixtyFourBitLength() {
        #expect(Array(framed([65_536]).prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00])
    }

    @Test func framesFollowOneAnotherWithTheirPayloadsWhole() {
        let bytes = framed([3, 200, 1])
        #expect(bytes.count == (2 + 3) + (4 + 200) + (2 + 1))
        #expect(Array(bytes[5..<9]) == [0x82, 126, 0, 200])
        #expect(Array(bytes[209..<212]) == [0x82, 1, 0x61])
    }

    @Test func aFrameThatDoesNotFitIsRefusedAndLeavesTheBatchAsItWas() {
        let batch = FrameBatch(capacity: 16)
        let first = [UInt8](repeating: 1, count: 10).withUnsafeBytes { batch.append($0, text: false) }
        let second = [UInt8](repeating: 2, count: 10).withUnsafeBytes { batch.append($0, text: false) }
        #expect(first && !second)
        #expect(batch.count == 12)
        batch.removeAll()
        #expect(batch.count == 0)
    }

    @Test func aFrameWrittenInPiecesIsTheSameBytesAsTheFrameWhole() {
        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let whole: [UInt8] = {
            let batch = FrameBatch(capacity: 1 << 20)
            _ = payload.withUnsafeBytes { batch.append($0, text: false) }
            return Array(batch.frames)
        }()
        let batch = FrameBatch(capacity: 4096)
        var written: [UInt8] = []
        var offset = 0
        #expect(batch.appendHeader(payload: payload.count, text: false))
        while offset < payload.count {
            offset += payload.withUnsafeBytes { batch.appendBytes(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            written += Array(batch.frames)
            batch.removeAll()
        }
        #expect(written == whole)
    }
}
