/// An image's size in pixels, read from the header of a PNG, GIF, JPEG or
/// WebP file (the formats the server takes), without decoding it: what a
/// bot or an app places an image at when no size is given.
public struct ImageDimensions: Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Nil for bytes that are none of the four, or whose header is cut short.
    public init?(of bytes: [UInt8]) {
        guard let size = Self.png(bytes) ?? Self.gif(bytes) ?? Self.jpeg(bytes) ?? Self.webP(bytes),
            size.width > 0, size.height > 0
        else { return nil }
        (width, height) = size
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (at..<at + count).reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (at..<at + count).reversed().reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    /// The IHDR chunk, always first: width and height at bytes 16 and 20.
    private static func png(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        return (bigEndian(bytes, 16, 4), bigEndian(bytes, 20, 4))
    }

    /// The logical screen: two little-endian 16-bit numbers after "GIF8?a".
    private static func gif(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 10, bytes.starts(with: Array("GIF8".utf8)) else { return nil }
        return (littleEndian(bytes, 6, 2), littleEndian(bytes, 8, 2))
    }

    /// The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC),
    /// found by walking the segments from the start of image.
    private static func jpeg(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF {  // fill byte
                at += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {  // no length
                at += 2
                continue
            }
            let length = bigEndian(bytes, at + 2, 2)
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard at + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes, at + 7, 2), bigEndian(bytes, at + 5, 2))
            }
            guard length >= 2 else { return nil }
            at += 2 + length
        }
        return nil
    }

    /// RIFF/WEBP with a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk.
    private static func webP(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8)
        else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8 ":
            return (littleEndian(bytes, 26, 2) & 0x3FFF, littleEndian(bytes, 28, 2) & 0x3FFF)
        case "VP8L":
            let bits = littleEndian(bytes, 21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return (littleEndian(bytes, 24, 3) + 1, littleEndian(bytes, 27, 3) + 1)
        default:
            return nil
        }
    }
}
