import CFuzzerDriver
import Foundation

/// `EaselFuzzer <target> [libFuzzer's options and corpus folders]` fuzzes
/// one target when built with `-sanitize=fuzzer` (Docs/RELIABILITY.md);
/// built normally, it replays the files and folders given through the
/// target's check, so a finding becomes a plain command.
/// `EaselFuzzer list` names the targets and their properties;
/// `EaselFuzzer seed <folder>` writes each target's seeds into
/// `<folder>/<target>/`, from Protocol/vectors and examples/bots.
@main
struct FuzzOrReplay {
    /// libFuzzer calls back through a C function pointer, which cannot
    /// capture: the target it runs is set once, before it starts.
    nonisolated(unsafe) static var chosen: FuzzTarget?

    static func main() {
        let arguments = CommandLine.arguments
        do {
            switch arguments.dropFirst().first {
            case "list":
                for target in FuzzTarget.all { print("\(target.name): \(target.property)") }
            case "seed" where arguments.count == 3:
                try seed(into: arguments[2])
            case let name? where FuzzTarget.named(name) != nil:
                try run(FuzzTarget.named(name), options: Array(arguments.dropFirst(2)))
            default:
                let names = FuzzTarget.all.map(\.name).joined(separator: "|")
                throw FuzzerError("usage: EaselFuzzer list | seed <folder> | <\(names)> [corpus folders, files, -options]")
            }
        } catch {
            FileHandle.standardError.write(Data("EaselFuzzer: \(error)\n".utf8))
            exit(2)
        }
    }

    private static func run(_ target: FuzzTarget?, options: [String]) throws {
        guard let target else { return }
        chosen = target
        // libFuzzer reads the program's name first, then its own options
        // and corpus folders: the target's name is not one of them.
        var cStrings = ([CommandLine.arguments[0]] + options).map { strdup($0) }
        var argc = Int32(cStrings.count)
        let fuzzed = cStrings.withUnsafeMutableBufferPointer { buffer in
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return easel_run_fuzzer(&argc, &argv) { data, size in
                FuzzOrReplay.chosen?.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                return 0
            }
        }
        for string in cStrings { free(string) }
        cStrings.removeAll()
        guard fuzzed == -1 else { exit(fuzzed) }

        var count = 0
        for path in options where !path.hasPrefix("-") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw FuzzerError("no such file or folder: \(path)")
            }
            for file in isFolder.boolValue ? try Vectors.files(in: path) : [path] {
                target.check(try Vectors.contents(of: file))
                count += 1
            }
        }
        print("\(target.name): checked \(count) inputs; every one held: \(target.property)")
    }

    private static func seed(into folder: String) throws {
        let sources = SeedSources(vectors: "Protocol/vectors", scripts: "examples/bots")
        for target in FuzzTarget.all {
            let targetFolder = "\(folder)/\(target.name)"
            try FileManager.default.createDirectory(atPath: targetFolder, withIntermediateDirectories: true)
            let seeds = try target.seeds(sources)
            for (name, bytes) in seeds {
                guard FileManager.default.createFile(atPath: "\(targetFolder)/\(name)", contents: Data(bytes)) else {
                    throw FuzzerError("cannot write \(targetFolder)/\(name)")
                }
            }
            print("\(target.name): \(seeds.count) seeds in \(targetFolder)")
        }
    }
}
