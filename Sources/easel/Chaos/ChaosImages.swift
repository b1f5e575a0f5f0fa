import EaselModel
import Foundation

/// Image files for random bots to upload: a PNG's signature and header
/// (the server sniffs the one, the bot reads its size from the other) and
/// bytes after it that differ from file to file, so each is its own blob:
/// enough of them that most uploads store a new blob rather than find one
/// already stored.
enum ChaosImages {
    static let count = 400

    static func write(into folder: String, seed: UInt64) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: seed ^ 0x696D_6167_6573)
        return try (0..<count).map { index in
            let width = 16 + index % 40 * 8
            let height = 12 + index % 30 * 6
            let body = (0..<(1_000 + index % 10 * 500)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = "\(folder)/image-\(index).png"
            try Data(png(width: width, height: height) + body).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    private static func png(width: Int, height: Int) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] {
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + bigEndian(width)
            + bigEndian(height)
    }
}
