import EaselProtocol
import EaselTestSupport

/// The vectors as raw material for mutants (the small ones: decoding a
/// thousand-op push a hundred thousand times would only slow the run).
struct MutationCorpus {
    var binary: [[UInt8]] = []
    var json: [[UInt8]] = []

    static func load() throws -> MutationCorpus {
        var corpus = MutationCorpus()
        for (name, _) in ValidVectors.all {
            corpus.binary.append(try VectorFiles.message(VectorFiles.validPath(name, .binary)))
            corpus.json.append(try VectorFiles.message(VectorFiles.validPath(name, .json)))
        }
        for vector in InvalidVectors.all where vector.bytes.count < 2048 {
            if vector.encoding == .binary {
                corpus.binary.append(vector.bytes)
            } else {
                corpus.json.append(vector.bytes)
            }
        }
        return corpus
    }

    func mutant(using random: inout SeededRandom) -> ([UInt8], WireEncoding) {
        let encoding: WireEncoding = random.chance(0.5) ? .binary : .json
        let pool = encoding == .binary ? binary : json
        var input = pool.randomElement(using: &random) ?? []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            mutate(&input, encoding: encoding, donor: pool.randomElement(using: &random) ?? [], using: &random)
        }
        return (input, encoding)
    }

    private func mutate(
        _ input: inout [UInt8], encoding: WireEncoding, donor: [UInt8], using random: inout SeededRandom
    ) {
        let position = Int.random(in: 0...input.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:  // flip one bit
            guard position < input.count else { return }
            input[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 1:  // truncate
            input.removeSubrange(position...)
        case 2:  // splice: this input's head, another's tail
            let cut = Int.random(in: 0...donor.count, using: &random)
            input = Array(input[..<position]) + donor[cut...]
        case 3:  // inflate a length or count
            let inflated: [UInt8] =
                encoding == .binary
                ? [[0xFF, 0xFF, 0xFF, 0xFF, 0x0F], [0x7F], [0xFF, 0x7F], [0x80, 0x80, 0x04]].randomElement(
                    using: &random) ?? []
                : Array(
                    ["99999999999999999999999", "1e39", "[[[[[[[[[[[[[[[[[[", "\"\\ud800\"", "-0"].randomElement(
                        using: &random)?.utf8 ?? "".utf8)
            let replaced = min(inflated.count, input.count - position)
            input.replaceSubrange(position..<position + replaced, with: inflated)
        case 4:  // insert a byte that matters to the grammar
            let bytes: [UInt8] = encoding == .binary ? [0x00, 0x01, 0x80, 0xFF] : Array("\"{}[],:-e.\\".utf8)
            input.insert(bytes.randomElement(using: &random) ?? 0, at: position)
        case 5:  // delete a byte
            guard position < input.count else { return }
            input.remove(at: position)
        default:  // repeat a stretch
            let end = min(input.count, position + Int.random(in: 1...16, using: &random))
            input.insert(contentsOf: input[position..<end], at: position)
        }
    }
}
