import CFuzzerDriver
@_spi(Fuzzing) import EaselProtocol
import Foundation

/// The property the fuzzer hunts for breaks of: any bytes decode, in either
/// encoding, to a message that survives re-encoding, or to a decoding error
/// (1xx) — never a trap, and never a reservation beyond the input's size.
enum ProtocolFuzzer {
    static func check(_ input: [UInt8]) {
        let (binary, reserved) = Message.decodeMeasuringReservations(input)
        precondition(reserved <= input.count, "reserved \(reserved) elements for \(input.count) bytes")
        if case .success(let message) = binary {
            precondition((try? Message(binary: message.binaryEncoded())) == message, "binary round trip: \(message)")
        }
        checkError(binary)

        let json = Result { () throws(DecodeError) -> Message in try Message(json: input) }
        if case .success(let message) = json {
            precondition((try? Message(json: message.jsonEncoded())) == message, "JSON round trip: \(message)")
        }
        checkError(json)
    }

    private static func checkError(_ result: Result<Message, DecodeError>) {
        if case .failure(let error) = result {
            precondition((100...111).contains(error.code.rawValue), "not a decoding error: \(error)")
        }
    }
}

/// Under libFuzzer (built with `-sanitize=fuzzer`, see Docs/fuzzing.md) it
/// fuzzes; otherwise it replays files (a corpus, crash reproducers) through
/// the same check, so a fuzzer finding becomes a plain command.
@main
struct FuzzOrReplay {
    static func main() throws {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let fuzzed = easel_run_fuzzer(&argc, &argv) { data, size in
            ProtocolFuzzer.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        }
        guard fuzzed == -1 else { exit(fuzzed) }

        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path))?.map { "\(path)/\($0)" } ?? [path]
            for file in files {
                ProtocolFuzzer.check(try contents(of: file))
                count += 1
            }
        }
        print("checked \(count) inputs: every one decoded and re-encoded, or gave a decoding error")
    }

    /// A file's bytes; a golden vector's `.hex` file is read as the bytes
    /// its digits spell.
    static func contents(of path: String) throws -> [UInt8] {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard path.hasSuffix(".hex") else { return data }
        let digits = data.filter { $0 > 0x20 }.map { Character(UnicodeScalar($0)) }
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }
}
