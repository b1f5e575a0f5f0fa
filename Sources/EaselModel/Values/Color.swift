/// An sRGB colour with alpha, 8 bits a channel, packed as 0xRRGGBBAA.
public struct Color: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32

    @inlinable
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        rawValue = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
    }

    public var red: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 24) }
    public var green: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 16) }
    public var blue: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 8) }
    public var alpha: UInt8 { UInt8(truncatingIfNeeded: rawValue) }

    public static let black = Color(rawValue: 0x0000_00FF)
    public static let white = Color(rawValue: 0xFFFF_FFFF)
    /// Fully transparent: as a fill, it means "not filled".
    public static let clear = Color(rawValue: 0)

    /// `#rrggbbaa`, as SVG and CSS read it.
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return "#" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
