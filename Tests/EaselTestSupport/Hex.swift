/// Hex text for fixtures and golden files.

/// Bytes from hex digits; spaces and newlines are ignored.
public func bytes(hex: some StringProtocol) -> [UInt8] {
    let digits = hex.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }
    return stride(from: 0, to: digits.count - 1, by: 2).map { index in
        let pair = String(decoding: digits[index...index + 1], as: UTF8.self)
        guard let byte = UInt8(pair, radix: 16) else { fatalError("bad hex \(pair) in a fixture") }
        return byte
    }
}

public func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
}
