import ArgumentParser
import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// Text that merges keystrokes: an editing trace typed into a text and
/// merged by a fresh replica, against Loro and Yrs in the same run.
struct BenchText: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Replay an editing trace and merge it; compare with Loro and Yrs in the same run.",
        discussion: """
            The trace is one of josephg/editing-traces' sequential traces (Benchmarks/README.md says where to \
            get automerge-paper). The peers run Benchmarks/peers/text_trace.py (needs `pip install loro pycrdt`). \
            Build this command with -c release.
            """
    )

    @Option(help: "The editing trace, JSON or gzipped JSON.")
    var trace = "Benchmarks/traces/automerge-paper.json.gz"
    @Option(help: "Runs of each side; medians are reported.") var runs = 5
    @Option(
        help: ArgumentHelp(
            "How many times each short merge (ops together, the outbox's, a snapshot, the peers' imports) is timed in a run.",
            discussion:
                "A merge of a few milliseconds is easily caught by a busy neighbour: several a run keep the median steady."
        ))
    var merges = 5
    @Option(help: "Peers to run beside Easel (loro, yrs), or 'none'.") var peers = "loro,yrs"
    @Option(help: "The peers' script.") var script = "Benchmarks/peers/text_trace.py"
    @Option(help: "The Python that runs it (one with loro and pycrdt installed).") var python = "python3"
    @Option(help: "The WebAssembly module (Web/build.sh) to replay the trace in under Node, or 'none'.")
    var module = ".build-wasm/easel.wasm"
    @Option(help: ArgumentHelp("Merge the ops together this many times and stop, for a profiler.", visibility: .hidden))
    var profileMerges = 0
    @Option(
        help: ArgumentHelp(
            "Decode the outbox's ops messages and merge them into a document this many times, print the median, and stop, for a profiler.",
            visibility: .hidden))
    var profileDocumentMerges = 0
    @Option(
        help: ArgumentHelp(
            "Replay the trace this many times, print the median, and stop, for a profiler.", visibility: .hidden))
    var profileReplays = 0
    @Option(
        help: ArgumentHelp("Load the trace's snapshot this many times and stop, for a profiler.", visibility: .hidden))
    var profileSnapshotLoads = 0
    @Option(
        help: ArgumentHelp(
            "Decode a welcome of the merged document and load it this many times, print the median, and stop, for a profiler.",
            visibility: .hidden))
    var profileWelcomeLoads = 0

    func run() throws {
        _ = try measure()
    }

    /// Runs the comparison, printing as it goes; the rows `easel bench all`
    /// shows (none in a profiling mode).
    func measure() throws -> [BenchRow] {
        let trace = try TextTrace(path: trace)
        var typed = TextSequence()
        let ops = trace.replay(into: &typed)
        try check(typed, against: trace, "the replay")
        let snapshot = TextSnapshot(joining: typed.snapshot)
        var joined = 0
        var previous: TextOp?
        for op in ops {
            switch (previous, op) {
            case (.insert(let run)?, .insert(let next)) where run.isContinued(by: next): break
            default: joined += 1
            }
            previous = op
        }
        print(
            "\(trace.patches.count) patches: \(ops.count) ops (\(joined) when inserts typed on are joined), \(typed.count) characters, \(snapshot.runs.count) runs in a snapshot"
        )

        if profileReplays > 0 {
            var times: [Double] = []
            for _ in 0..<profileReplays {
                var replayed = TextSequence()
                var made: [TextOp] = []
                times.append(measure { made = trace.replay(into: &replayed) })
                withExtendedLifetime(made) {}
            }
            printLoop("replay", times)
            return []
        }
        if profileSnapshotLoads > 0 {
            for _ in 0..<profileSnapshotLoads {
                try check(try TextSequence(snapshot: snapshot), against: trace, "the snapshot")
            }
            return []
        }
        if profileMerges > 0 {
            for _ in 0..<profileMerges {
                var together = TextSequence()
                together.apply(contentsOf: ops)
                try check(together, against: trace, "the merge of ops together")
            }
            return []
        }
        // The trace as the document and the wire have it: a text's create,
        // then each edit as an op, in binary `ops` messages.
        let note = EntityID(OpID(counter: 1, replica: ReplicaID(rawValue: 2)))
        let documentOps = Self.documentOps(ops, into: note)
        let messages = Self.messages(documentOps)
        // As a client that typed the trace offline sends it: its outbox
        // joins keys typed on, and characters deleted on, into one op.
        var outbox: [Op] = []
        for op in documentOps {
            if var last = outbox.last, last.join(op) { outbox[outbox.count - 1] = last } else { outbox.append(op) }
        }
        let outboxMessages = Self.messages(outbox)
        print(
            "an outbox joins the \(documentOps.count) ops into \(outbox.count), \(outboxMessages.reduce(0) { $0 + $1.count }) bytes on the wire"
        )
        // What a client joining the merged document receives: its state as
        // a welcome's snapshot, in the frames the server sends.
        let welcomeFrames = Message.welcome(
            Welcome(
                epoch: Epoch(rawValue: 1), position: UInt64(documentOps.count),
                content: .snapshot(try Self.decodeAndMerge(outboxMessages).get().snapshotOps))
        ).wireFrames(as: .binary)
        print(
            "a welcome of the merged document: \(welcomeFrames.reduce(0) { $0 + $1.count }) bytes in \(welcomeFrames.count) frames"
        )
        if profileWelcomeLoads > 0 {
            try profileLoop("decode + load, a welcome", profileWelcomeLoads) { Self.decodeAndLoad(welcomeFrames) }
            return []
        }
        if profileDocumentMerges > 0 {
            try profileLoop("decode + merge, outbox", profileDocumentMerges) { Self.decodeAndMerge(outboxMessages) }
            return []
        }
        let wireBytes = messages.reduce(0) { $0 + $1.count }
        print(
            "on the wire: \(wireBytes) bytes in \(messages.count) ops messages, \(String(format: "%.2f", Double(wireBytes) / Double(documentOps.count))) bytes an op"
        )

        var timings: [String: [Double]] = [:]
        var peerBytes: [String: (update: Int, snapshot: Int)] = [:]
        var pairedRatios: [String: [Double]] = [:]
        let peerNames = peers == "none" ? [] : peers.split(separator: ",").map(String.init)
        for run in 1...runs {
            var replayed = TextSequence()
            // The ops made are kept past the timing: freeing the bench's
            // list of them is not the model's work.
            var made: [TextOp] = []
            timings["replay", default: []].append(measure { made = trace.replay(into: &replayed) })
            withExtendedLifetime(made) {}
            try check(replayed, against: trace, "the timed replay")

            var oneByOne = TextSequence()
            timings["merge op by op", default: []].append(measure { for op in ops { oneByOne.apply(op) } })
            try check(oneByOne, against: trace, "the merge op by op")

            for _ in 0..<merges {
                var together = TextSequence()
                timings["merge ops together", default: []].append(measure { together.apply(contentsOf: ops) })
                try check(together, against: trace, "the merge of ops together")
            }

            var received = Result<Document, DecodeError>.success(Document())
            timings["decode + merge in the document", default: []].append(
                measure { received = Self.decodeAndMerge(messages) })
            guard try received.get().textString(of: note) == trace.endContent else {
                throw ValidationError("decode + merge in the document did not end as the trace's end content")
            }

            for _ in 0..<merges {
                var loaded = TextSequence()
                var loadError: ModelError?
                timings["load a snapshot", default: []].append(
                    measure {
                        do throws(ModelError) { loaded = try TextSequence(snapshot: snapshot) } catch {
                            loadError = error
                        }
                    })
                if let loadError { throw loadError }
                try check(loaded, against: trace, "the snapshot")
            }

            // The outbox merge and the peers' imports in turn, a merge each:
            // a slow spell of the machine falls on both sides.
            var running: [(name: String, process: PeerProcess)] = []
            for peer in peerNames {
                let process = try PeerProcess(
                    [python, script, "--peer", peer, "--trace", self.trace, "--serve"], name: peer)
                let setup = try process.readObject()
                guard let replay = setup["replay_seconds"] as? Double, let update = setup["update_bytes"] as? Int,
                    let snapshot = setup["snapshot_bytes"] as? Int
                else { throw ValidationError("\(peer) gave no timings: \(setup)") }
                timings["\(peer) replay", default: []].append(replay)
                peerBytes[peer] = (update, snapshot)
                running.append((peer, process))
            }
            for _ in 0..<merges {
                var received = Result<Document, DecodeError>.success(Document())
                let easel = measure { received = Self.decodeAndMerge(outboxMessages) }
                guard try received.get().textString(of: note) == trace.endContent else {
                    throw ValidationError("decode + merge, outbox did not end as the trace's end content")
                }
                timings["decode + merge, outbox", default: []].append(easel)

                var joined = Result<Document, DecodeError>.success(Document())
                let join = measure { joined = Self.decodeAndLoad(welcomeFrames) }
                guard try joined.get().textString(of: note) == trace.endContent else {
                    throw ValidationError("decode + load, a welcome did not end as the trace's end content")
                }
                timings["decode + load, a welcome", default: []].append(join)
                for (peer, process) in running {
                    let answer = try process.request("merge")
                    guard let seconds = answer["merge_seconds"] as? Double else {
                        throw ValidationError("\(peer) gave no merge time: \(answer)")
                    }
                    timings["\(peer) merge", default: []].append(seconds)
                    pairedRatios["\(peer) merge / Easel decode + merge, outbox", default: []].append(seconds / easel)
                    pairedRatios["\(peer) merge / Easel decode + load, a welcome", default: []].append(seconds / join)
                }
            }
            for (_, process) in running { try process.finish() }
            print("run \(run)/\(runs) done")
        }
        try reportDocument(outboxMessages, trace: trace, note: note, peerBytes: peerBytes)
        if module != "none" { timings["replay in the module (Node)"] = try replayInModule(trace) }
        print(
            "text, \(trace.patches.count) patches, median of \(runs) runs (of \(runs * merges) timings for the short merges) (min-max), milliseconds:"
        )
        for name in [
            "replay", "replay in the module (Node)", "merge op by op", "merge ops together",
            "decode + merge in the document",
            "decode + merge, outbox", "decode + load, a welcome", "load a snapshot",
        ]
            + peerNames.flatMap({ ["\($0) replay", "\($0) merge"] })
        {
            guard let values = timings[name] else { continue }
            print(
                String(
                    format: "  %-20@ %8.2f  (%.2f-%.2f)", name, median(values) * 1e3, (values.min() ?? 0) * 1e3,
                    (values.max() ?? 0) * 1e3))
        }
        for (peer, bytes) in peerBytes.sorted(by: { $0.key < $1.key }) {
            print("  \(peer): updates \(bytes.update) bytes, snapshot \(bytes.snapshot) bytes")
        }
        if let module = timings["replay in the module (Node)"], let native = timings["replay"] {
            print(String(format: "ratio module / native replay: %.2fx the time", median(module) / median(native)))
        }
        if let loro = timings["loro merge"] {
            for name in [
                "merge op by op", "merge ops together", "decode + merge in the document", "decode + merge, outbox",
                "decode + load, a welcome", "load a snapshot",
            ] {
                print(
                    String(
                        format: "ratio Loro merge / Easel %@: %.2fx", name, median(loro) / median(timings[name] ?? [1]))
                )
            }
        }
        for (pair, ratios) in pairedRatios.sorted(by: { $0.key < $1.key }) {
            print(
                String(
                    format: "ratio %@, merge by merge in turn: median %.2fx (%.2f-%.2f)", pair,
                    median(ratios), ratios.min() ?? 0, ratios.max() ?? 0))
        }
        return Self.rows(timings, peers: peerNames)
    }

    /// A fresh replica merging the trace, against each peer's import of its
    /// update: the ops a client's outbox sends (keys typed on joined), and
    /// every keystroke an op; and the module's replay against native.
    static func rows(_ timings: [String: [Double]], peers: [String]) -> [BenchRow] {
        let milliseconds = { (name: String) in (timings[name] ?? []).map { $0 * 1e3 } }
        var rows: [BenchRow] = []
        let compared = [
            ("decode + merge an outbox's ops, ms", "decode + merge, outbox"),
            ("decode + merge a keystroke an op, ms", "decode + merge in the document"),
        ]
        for (metric, name) in compared {
            for peer in peers {
                rows.append(
                    BenchRow(
                        workload: "text (automerge-paper)", metric: metric, unit: "ms", easel: milliseconds(name),
                        peer: peer == "yrs" ? "Yrs" : "Loro", peerValues: milliseconds("\(peer) merge"),
                        higherIsBetter: false))
            }
        }
        if timings["replay in the module (Node)"] != nil {
            rows.append(
                BenchRow(
                    workload: "text (automerge-paper)", metric: "replay the trace in the module, ms", unit: "ms",
                    easel: milliseconds("replay in the module (Node)"), peer: "native Swift",
                    peerValues: milliseconds("replay"), higherIsBetter: false))
        }
        return rows
    }

    /// The replay's seconds in the WebAssembly module under Node
    /// (Web/bench/text.mjs, `easel_text_trace_replay`), once per run, after the
    /// native runs; the text it ends with must be the trace's.
    private func replayInModule(_ trace: TextTrace) throws -> [Double] {
        var patches: [UInt8] = []
        func word(_ value: Int) {
            for shift in stride(from: 0, to: 32, by: 8) { patches.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        for patch in trace.patches {
            word(patch.position)
            word(patch.deleted)
            word(patch.inserted.count)
            for scalar in patch.inserted { word(Int(scalar.value)) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("easel-text-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(patches).write(to: file)
        let result = try runPeer(["node", "Web/bench/text.mjs", file.path, module, String(runs)], name: "the module")
        guard let seconds = result["seconds"] as? [Double], result["text"] as? String == trace.endContent else {
            throw ValidationError("the module's replay did not end as the trace's end content")
        }
        return seconds
    }

    /// What a replica does with `ops` messages: decode each and merge its
    /// ops into the document (`Message.ops(binary:)`,
    /// `Document.apply(contentsOf:)`).
    static func decodeAndMerge(_ messages: [[UInt8]]) -> Result<Document, DecodeError> {
        var document = Document()
        for bytes in messages {
            do throws(DecodeError) {
                guard let ops = try Message.ops(binary: bytes) else { continue }
                document.apply(contentsOf: ops)
            } catch {
                return .failure(error)
            }
        }
        return .success(document)
    }

    /// What a client does with a welcome's frames: decodes each, and loads
    /// the snapshot's ops together into a fresh document (as
    /// `SyncClient` does when the last frame arrives).
    static func decodeAndLoad(_ frames: [[UInt8]]) -> Result<Document, DecodeError> {
        var state: [Op] = []
        for bytes in frames {
            do throws(DecodeError) {
                guard case .welcome(let welcome) = try Message(binary: bytes), case .snapshot(let ops) = welcome.content
                else { continue }
                state.append(contentsOf: ops)
            } catch {
                return .failure(error)
            }
        }
        var document = Document()
        document.apply(contentsOf: state)
        return .success(document)
    }

    /// The merged document as a store keeps it (its snapshot, encoded), and
    /// the memory a text loaded from that holds, beside the text itself.
    private func reportDocument(
        _ messages: [[UInt8]], trace: TextTrace, note: EntityID, peerBytes: [String: (update: Int, snapshot: Int)]
    ) throws {
        let merged = try Self.decodeAndMerge(messages).get()
        let encoded = OpBatchCoding.encode(merged.snapshotOps)
        let peers = peerBytes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.snapshot)" }.joined(
            separator: ", ")
        print(
            "the encoded document (a store's snapshot): \(encoded.count) bytes\(peers.isEmpty ? "" : " (peers' snapshots: \(peers))")"
        )
        var loaded = Document()
        loaded.apply(contentsOf: try OpBatchCoding.decode(encoded))
        guard let sequence = loaded.textSequence(of: note), sequence.string == trace.endContent else {
            throw ValidationError("the loaded document did not read as the trace's end content")
        }
        let text = trace.endContent.utf8.count
        print(
            "memory the loaded text's stores hold: \(sequence.storageBytes) bytes, \(sequence.storageBytes - text) beyond the text's \(text) bytes of UTF-8"
        )
    }

    /// Ops in binary `ops` messages of at most the protocol's ops a message.
    static func messages(_ ops: [Op]) -> [[UInt8]] {
        stride(from: 0, to: ops.count, by: ProtocolLimits.opsPerMessage).map { start in
            Message.ops(
                ops[start..<min(ops.count, start + ProtocolLimits.opsPerMessage)].enumerated().map {
                    PositionedOp(position: UInt64(start + $0.offset + 1), op: $0.element)
                }
            ).binaryEncoded()
        }
    }

    /// A text's create, then the replayed edits as ops: inserts keep their
    /// characters' IDs, deletes take IDs of a replica of their own.
    static func documentOps(_ ops: [TextOp], into note: EntityID) -> [Op] {
        var documentOps = [Op(id: note.creation, transaction: TransactionID(note.creation), action: .create(.text, []))]
        documentOps.reserveCapacity(ops.count + 1)
        var deletes: UInt64 = 0
        for op in ops {
            switch op {
            case .insert(let insert):
                documentOps.append(
                    Op(
                        id: insert.id, transaction: TransactionID(insert.id),
                        action: .insertText(
                            note,
                            TextInsertion(
                                originLeft: insert.originLeft, originRight: insert.originRight, scalars: insert.scalars)
                        )))
            case .delete(let delete):
                deletes += 1
                let id = OpID(counter: deletes, replica: ReplicaID(rawValue: 3))
                documentOps.append(
                    Op(id: id, transaction: TransactionID(id), action: .deleteText(note, Array(delete.runs))))
            }
        }
        return documentOps
    }

    /// Times `decode` `count` times in a row and prints the loop's median.
    private func profileLoop(
        _ name: String, _ count: Int, _ decode: () -> Result<Document, DecodeError>
    ) throws {
        var times: [Double] = []
        for _ in 0..<count {
            var decoded = Result<Document, DecodeError>.success(Document())
            times.append(measure { decoded = decode() })
            _ = try decoded.get()
        }
        printLoop(name, times)
    }

    /// A loop's median: each merge or replay right after the last, warm,
    /// with no other process between them (the table's merges alternate
    /// with the peers').
    private func printLoop(_ name: String, _ times: [Double]) {
        print(
            String(
                format: "%@, %d in a loop: median %.2f ms (%.2f-%.2f)", name, times.count, median(times) * 1e3,
                (times.min() ?? 0) * 1e3, (times.max() ?? 0) * 1e3))
    }

    /// The seconds `body` takes, timed after the core has been kept busy
    /// for a moment: a merge timed right after the process slept (waiting
    /// for a peer's answer) ran up to half again as long on this shared
    /// machine, where one timed after a busy wait did not. The peers' script
    /// waits the same way before each of its merges.
    private func measure(_ body: () -> Void) -> Double {
        let awake = ContinuousClock.now + .milliseconds(20)
        while ContinuousClock.now < awake {}
        return ContinuousClock().measure(body).seconds
    }

    private func check(_ text: TextSequence, against trace: TextTrace, _ what: String) throws {
        guard text.string == trace.endContent else {
            throw ValidationError("\(what) did not end as the trace's end content")
        }
    }
}
