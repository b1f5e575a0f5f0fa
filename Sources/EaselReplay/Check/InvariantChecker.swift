import EaselModel
import EaselProtocol

/// Checks each op of a history against `Invariant`s, in log order, before
/// the op is applied to `document` (the state it lands on).
public struct InvariantChecker: Sendable {
    /// The highest counter seen from each replica so far.
    private var counters: [ReplicaID: UInt64] = [:]

    /// `highWater`: each replica's highest counter before the first op
    /// (a compacted log's snapshot has them).
    public init(highWater: [ReplicaID: UInt64] = [:]) {
        counters = highWater
    }

    /// The rules `op` breaks when applied at `position` to `document`.
    public mutating func check(_ op: Op, at position: UInt64, on document: Document) -> [Violation] {
        var found: [Violation] = []
        func broken(_ invariant: Invariant, _ detail: String) {
            found.append(Violation(position: position, invariant: invariant, detail: detail))
        }
        do throws(ModelError) {
            try document.validate(op)
        } catch {
            broken(.acceptable, error.description)
        }
        let replica = op.id.replica
        if let previous = counters[replica], op.id.counter <= previous {
            broken(.keys, "\(op.id) comes after \(previous)@\(replica) from the same replica")
        }
        // An insert's characters take the counters after its own.
        counters[replica] = max(counters[replica] ?? 0, op.lastCounter)
        switch op.action {
        case .create(_, let fields):
            if document.kind(of: op.entity) != nil { broken(.keys, "\(op.entity) is created a second time") }
            for field in fields { check(field, of: op.entity, broken) }
        case .set(let entity, let field):
            check(field, of: entity, broken)
        case .delete, .restore:
            break
        case .append(let entity, let start, let samples):
            checkAppend(to: entity, start: start, samples: samples, on: document, broken)
        case .insertText, .deleteText, .textSnapshot:
            break
        }
        return found
    }

    private func check(_ field: Field, of entity: EntityID, _ broken: (Invariant, String) -> Void) {
        switch field {
        case .x(let value), .y(let value), .scale(let value), .rotation(let value),
            .weight(let value), .size(let value), .width(let value), .height(let value):
            if let range = InvariantRanges.range(of: field.id), !range.contains(value) {
                broken(.inRange, "\(entity) \(field.id)=\(value) is outside \(range)")
            }
        case .character(let string):
            if string.count != 1 {
                broken(.strings, "\(entity) character \"\(string)\" is \(string.count) characters, not one")
            }
        case .font(let string):
            if string.isEmpty { broken(.strings, "\(entity) font is empty") }
        default:
            break
        }
    }

    private func checkAppend(
        to entity: EntityID, start: UInt32, samples: [StrokeSample], on document: Document,
        _ broken: (Invariant, String) -> Void
    ) {
        let end = UInt64(start) + UInt64(samples.count)
        if let held = document.contiguousSampleCount(of: entity), start > held {
            broken(.contiguousAppends, "\(entity) samples \(start)..<\(end) leave a gap after its \(held) samples")
        }
        if let index = document.firstSampleDisagreement(
            of: entity, with: SampleChunk(start: start, samples: samples))
        {
            broken(.contiguousAppends, "\(entity) samples \(start)..<\(end) contradict the sample it holds at \(index)")
        }
        if end > UInt64(InvariantRanges.samplesPerStroke) {
            broken(.samples, "\(entity) would hold \(end) samples; at most \(InvariantRanges.samplesPerStroke)")
        }
        var previousTime: Float? = nil
        if case .stroke(let stroke) = document[entity]?.content, start > 0, Int(start) <= stroke.samples.count {
            previousTime = stroke.samples[Int(start) - 1].time
        }
        for (offset, sample) in samples.enumerated() {
            let index = UInt64(start) + UInt64(offset)
            for (name, value) in [("x", sample.x), ("y", sample.y)] where !InvariantRanges.coordinate.contains(value) {
                broken(.inRange, "\(entity) sample \(index) \(name)=\(value) is outside \(InvariantRanges.coordinate)")
            }
            if !InvariantRanges.sampleTime.contains(sample.time) {
                broken(
                    .inRange, "\(entity) sample \(index) time=\(sample.time) is outside \(InvariantRanges.sampleTime)")
            }
            if let force = sample.force, !InvariantRanges.force.contains(force) {
                broken(.inRange, "\(entity) sample \(index) force=\(force) is outside \(InvariantRanges.force)")
            }
            if let previousTime, sample.time < previousTime {
                broken(.samples, "\(entity) sample \(index) time \(sample.time) goes back from \(previousTime)")
            }
            previousTime = sample.time
        }
    }
}
