import Foundation

/// The golden vectors (Protocol/vectors) as seeds: each `.hex` file is the
/// bytes its digits spell, each `.json` file its bytes.
enum Vectors {
    static func messages(in folder: String, ending suffix: String) throws -> [(String, [UInt8])] {
        try files(in: folder).filter { $0.hasSuffix(suffix) }.map { path in
            // Named for its bytes: a seed is raw, never hex digits.
            let name = path.split(separator: "/").suffix(2).joined(separator: "-")
            return (name.hasSuffix(".hex") ? String(name.dropLast(4)) + ".bin" : name, try contents(of: path))
        }
    }

    /// Every file under `folder`, sorted.
    static func files(in folder: String) throws -> [String] {
        let manager = FileManager.default
        guard let names = manager.enumerator(atPath: folder)?.allObjects as? [String] else {
            throw FuzzerError("cannot read \(folder)")
        }
        return names.sorted().map { "\(folder)/\($0)" }.filter { path in
            var isFolder: ObjCBool = false
            return manager.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }

    /// A file's bytes; a golden vector's `.hex` file is read as the bytes
    /// its digits spell.
    static func contents(of path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw FuzzerError("cannot read \(path)") }
        let bytes = [UInt8](data)
        guard path.hasSuffix(".hex") else { return bytes }
        let digits = bytes.filter { $0 > 0x20 }.map { Character(UnicodeScalar($0)) }
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(digits[$0...$0 + 1]), radix: 16)
        }
    }
}

struct FuzzerError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
