import EaselClient
import Testing

/// An image's pixel size from its header, for each format the server takes.
@Suite struct ImageDimensionsTests {
    @Test func aPNGsSizeComesFromItsHeader() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
            0, 0, 0x01, 0x40, 0, 0, 0, 0xC8]
        #expect(ImageDimensions(of: png) == ImageDimensions(width: 320, height: 200))
    }

    @Test func aGIFsSizeComesFromItsLogicalScreen() {
        #expect(ImageDimensions(of: Array("GIF89a".utf8) + [0x40, 0x01, 0xC8, 0x00]) == ImageDimensions(width: 320, height: 200))
    }

    @Test func aJPEGsSizeComesFromItsFirstFrameHeaderPastOtherSegments() {
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]
        let huffman: [UInt8] = [0xFF, 0xC4, 0x00, 0x03, 0x00]  // DHT: not a frame
        let frame: [UInt8] = [0xFF, 0xC2, 0x00, 0x11, 0x08, 0x00, 0xC8, 0x01, 0x40, 0x03]
        #expect(ImageDimensions(of: [0xFF, 0xD8] + app0 + huffman + frame) == ImageDimensions(width: 320, height: 200))
    }

    @Test func aWebPsSizeComesFromItsLossyLosslessOrExtendedChunk() {
        let riff = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        let lossy = riff + Array("VP8 ".utf8) + [UInt8](repeating: 0, count: 10) + [0x40, 0x01, 0xC8, 0x00]
        #expect(ImageDimensions(of: lossy) == ImageDimensions(width: 320, height: 200))
        // 14 bits each of width − 1 and height − 1, after the 0x2f signature byte.
        let bits = UInt32(319) | UInt32(199) << 14
        let lossless = riff + Array("VP8L".utf8) + [0, 0, 0, 0, 0x2F] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
            + [0, 0, 0, 0, 0]
        #expect(ImageDimensions(of: lossless) == ImageDimensions(width: 320, height: 200))
        let extended = riff + Array("VP8X".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + [0x3F, 0x01, 0x00, 0xC7, 0x00, 0x00]
        #expect(ImageDimensions(of: extended) == ImageDimensions(width: 320, height: 200))
    }

    @Test func textAnSVGAndATruncatedHeaderHaveNoSize() {
        #expect(ImageDimensions(of: Array("just text".utf8)) == nil)
        #expect(ImageDimensions(of: Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)) == nil)
        #expect(ImageDimensions(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) == nil)
        #expect(ImageDimensions(of: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x40]) == nil, "a segment running past the end")
    }
}
