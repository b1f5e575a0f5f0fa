import ArgumentParser
import EaselModel
import EaselProtocol
import EaselSync

/// What an app pays to take remote ops in, against the bare merge: the same
/// workload as `easel bench merge`, received by a client engine (decode,
/// `SyncClient.receive`, `Editor.receive`) and applied raw with
/// `Document.apply` to already decoded ops, alternately, with medians and
/// their ratio.
struct BenchReceive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract:
            "Receive a canvas workload through the client engine; compare with raw Document.apply in the same run."
    )

    @Option(help: "Entities on the canvas.") var entities = 1000
    @Option(help: "Property sets to merge.") var sets = 1_000_000
    @Option(help: "Concurrent writers.") var writers = 4
    @Option(help: "Runs of each side; medians are reported.") var runs = 5

    func run() throws {
        _ = try measure()
    }

    /// The measurements, printed as they come; their rows for `easel bench
    /// all`.
    func measure() throws -> [BenchRow] {
        let workload = try MergeWorkload(entities: entities, sets: sets, writers: writers, seed: 1)
        var raw: [Double] = []
        var decodeAndApply: [Double] = []
        var received: [Double] = []
        var expected = StateHash(rawValue: 0)
        for run in 1...runs {
            let (rawSeconds, rawHash) = timeRawApply(workload)
            let (clientSeconds, clientHash) = try timeClientReceive(workload)
            let (mergeSeconds, mergeHash) = try workload.timeDecodeAndApply()
            guard rawHash == clientHash, rawHash == mergeHash else {
                throw ValidationError("the client reached \(clientHash), decode and apply \(mergeHash), raw \(rawHash)")
            }
            expected = rawHash
            raw.append(rawSeconds)
            decodeAndApply.append(mergeSeconds)
            received.append(clientSeconds)
            print("run \(run)/\(runs) done")
        }
        let count = Double(workload.ops.count)
        print("receiving \(workload.ops.count) property sets on \(entities) entities, median of \(runs):")
        print(String(format: "  raw Document.apply (decoded ops)   %6.2f M sets/s", count / median(raw) / 1e6))
        print(
            String(format: "  decode + apply (bench merge)       %6.2f M sets/s", count / median(decodeAndApply) / 1e6))
        print(String(format: "  client receive (decode + engine)   %6.2f M sets/s", count / median(received) / 1e6))
        print(
            String(
                format: "ratio receive / raw apply: %.2fx; receive / decode + apply: %.2fx (all reached state %@)",
                median(raw) / median(received), median(decodeAndApply) / median(received), expected.hex))
        return [
            BenchRow(
                workload: "receive path", metric: "client receive", unit: "M sets/s",
                easel: received.map { count / $0 / 1e6 }, peer: "raw apply", peerValues: raw.map { count / $0 / 1e6 },
                higherIsBetter: true)
        ]
    }

    private func timeRawApply(_ workload: MergeWorkload) -> (Double, StateHash) {
        var document = workload.base
        let elapsed = ContinuousClock().measure {
            for index in workload.ops.indices { document.apply(workload.ops[index]) }
        }
        return (elapsed.seconds, document.stateHash)
    }

    private func timeClientReceive(_ workload: MergeWorkload) throws -> (Double, StateHash) {
        let start = Timestamp(milliseconds: 0)
        var client = SyncClient(
            document: try DocumentName("bench"), user: UserInfo(name: "bench", initials: "B", color: .black),
            replica: ReplicaID(rawValue: 0xBE7C), at: start)
        client.connectionOpened(at: start)
        client.receive(
            .welcome(
                Welcome(
                    epoch: Epoch(rawValue: 1), position: 0, content: .snapshot(workload.base.snapshotOps), peers: [])),
            at: start)
        _ = client.takeOutputs()
        let messages = workload.messages
        var failure: DecodeError?
        let elapsed = ContinuousClock().measure {
            for bytes in messages {
                do throws(DecodeError) {
                    client.receive(try Message(binary: bytes), at: start)
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw ValidationError("a workload message did not decode: \(failure)") }
        return (elapsed.seconds, client.editor.document.stateHash)
    }
}
