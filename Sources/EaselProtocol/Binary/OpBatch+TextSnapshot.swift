import EaselModel

// A text's snapshot (Protocol/README.md, 4.3): each run is a flags byte and
// what the flags say is not implied. A run mostly follows from the ones
// beside it: its left origin is the character before it or the previous
// run's last, its right origin the next run's first or the previous run's
// own, and its replica the previous run's. The characters not deleted
// follow as one string. On the automerge-paper trace this takes a run to
// about 7 bytes where insert ops took 15 (Docs/text.md).

extension ByteWriter {
    mutating func textSnapshot(_ snapshot: TextSnapshot, tables: BatchTables) {
        let runs = snapshot.runs
        varint(runs.count)
        var previousReplica = 0
        for (at, run) in runs.enumerated() {
            let previous = at > 0 ? runs[at - 1] : nil
            let next = at + 1 < runs.count ? runs[at + 1] : nil
            let replica = tables.existingIndex(of: run.first.replica)
            var flags: UInt8 = run.isDeleted ? OpBatch.runDeleted : 0
            let firstWritten = previous?.end != run.first
            if firstWritten {
                flags |= OpBatch.runFirstWritten
                if replica != previousReplica { flags |= OpBatch.runReplicaWritten }
            }
            let left = Self.leftOrigin(of: run, after: previous)
            let right = Self.rightOrigin(of: run, after: previous, before: next)
            flags |= left.rawValue << OpBatch.runLeftShift | right.rawValue << OpBatch.runRightShift
            let written = [left == .written ? run.originLeft : nil, right == .written ? run.originRight : nil]
            let namesReplicas = written.contains { $0 != nil && $0?.replica != run.first.replica }
            if namesReplicas { flags |= OpBatch.runOriginReplicasWritten }
            byte(flags)
            if firstWritten {
                if flags & OpBatch.runReplicaWritten != 0 { varint(replica) }
                signedVarint(Int64(bitPattern: run.first.counter &- (previous?.end.counter ?? 0)))
            }
            varint(run.count)
            for origin in written {
                guard let origin else { continue }
                if namesReplicas { varint(tables.existingIndex(of: origin.replica)) }
                signedVarint(Int64(bitPattern: origin.counter &- run.first.counter))
            }
            previousReplica = replica
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: snapshot.scalars)
        string(String(text))
    }

    private static func leftOrigin(of run: TextSnapshot.Run, after previous: TextSnapshot.Run?) -> OpBatch.RunOrigin {
        guard let origin = run.originLeft else { return .none }
        if run.first.counter > 1, origin == OpID(counter: run.first.counter - 1, replica: run.first.replica) {
            return .near
        }
        if let previous, origin == previous.first.advanced(by: previous.count - 1) { return .previous }
        return .written
    }

    private static func rightOrigin(
        of run: TextSnapshot.Run, after previous: TextSnapshot.Run?, before next: TextSnapshot.Run?
    ) -> OpBatch.RunOrigin {
        guard let origin = run.originRight else { return .none }
        if origin == next?.first { return .near }
        if origin == previous?.originRight { return .previous }
        return .written
    }
}

extension BinaryReader {
    /// A text snapshot's body after its entity; the model checks the rest
    /// (`Op.validate()`: limits, counters, a scalar for each character not
    /// deleted).
    @inline(never)
    mutating func textSnapshot(replicas: [ReplicaID], index: Int) throws(DecodeError) -> TextSnapshot {
        let runCount = try count(
            of: "runs in a text's snapshot", limit: ModelLimits.runsPerTextSnapshot, limitCode: .invalidValue,
            minimumBytes: 2)
        var runs: [TextSnapshot.Run] = []
        runs.reserveCapacity(runCount)
        // Right origins that are the next run's first, set once it is read.
        var rightIsNext: [Int] = []
        var replica = replicas.first
        for at in 0..<runCount {
            // Named only when something is wrong: building it for every
            // run had been a third of a snapshot's decoding.
            func what() -> String { "op \(index)'s run \(at)" }
            let flags = try byte("\(what())'s flags")
            let previous = runs.last
            var first: OpID
            if flags & OpBatch.runFirstWritten != 0 {
                if flags & OpBatch.runReplicaWritten != 0 {
                    replica = try reference(into: replicas, "\(what())'s replica index")
                }
                guard let replica else { throw DecodeError(.invalidValue, "\(what()) names no replica") }
                let delta = try signedVarint("\(what())'s counter difference")
                first = OpID(counter: (previous?.end.counter ?? 0) &+ UInt64(bitPattern: delta), replica: replica)
            } else {
                guard let previous, flags & OpBatch.runReplicaWritten == 0 else {
                    throw DecodeError(.unknownTag, "\(what()) goes on from no run, or names a replica it does not start")
                }
                first = previous.end
            }
            guard first.counter > 0 else { throw DecodeError(.invalidValue, "\(what()) has counter 0") }
            let count = try varint("\(what())'s length")
            guard count > 0, count <= UInt64(ModelLimits.charactersPerText) else {
                throw DecodeError(.invalidValue, "\(what()) has \(count) characters")
            }
            let namesReplicas = flags & OpBatch.runOriginReplicasWritten != 0
            func written(_ side: String) throws(DecodeError) -> OpID {
                let originReplica = namesReplicas ? try reference(into: replicas, "\(what())'s \(side) origin's replica") : first.replica
                let delta = try signedVarint("\(what())'s \(side) origin")
                let origin = OpID(counter: first.counter &+ UInt64(bitPattern: delta), replica: originReplica)
                guard origin.counter > 0 else { throw DecodeError(.invalidValue, "\(what())'s \(side) origin has counter 0") }
                return origin
            }
            let originLeft: OpID?
            switch OpBatch.RunOrigin(rawValue: flags >> OpBatch.runLeftShift & 3) {
            case .near?:
                guard first.counter > 1 else { throw DecodeError(.invalidValue, "\(what()) types on from no character") }
                originLeft = OpID(counter: first.counter - 1, replica: first.replica)
            case .previous?:
                guard let previous else { throw DecodeError(.invalidValue, "\(what()) follows no run") }
                originLeft = previous.first.advanced(by: previous.count - 1)
            case .written?: originLeft = try written("left")
            case .none?, nil: originLeft = nil
            }
            var originRight: OpID?
            switch OpBatch.RunOrigin(rawValue: flags >> OpBatch.runRightShift & 3) {
            case .near?:
                rightIsNext.append(at)
            case .previous?:
                guard let right = previous?.originRight else {
                    throw DecodeError(.invalidValue, "\(what()) takes the right origin of a run that has none")
                }
                originRight = right
            case .written?: originRight = try written("right")
            case .none?, nil: originRight = nil
            }
            runs.append(
                TextSnapshot.Run(
                    first: first, count: Int(count), originLeft: originLeft, originRight: originRight,
                    isDeleted: flags & OpBatch.runDeleted != 0))
        }
        for at in rightIsNext {
            guard at + 1 < runs.count else {
                throw DecodeError(.invalidValue, "op \(index)'s last run takes its right origin from no next run")
            }
            runs[at].originRight = runs[at + 1].first
        }
        let scalars = try scalars(
            "op \(index)'s characters", limit: ModelLimits.scalarsPerTextSnapshot * 4, limitCode: .invalidValue)
        return TextSnapshot(runs: runs, scalars: scalars)
    }
}
