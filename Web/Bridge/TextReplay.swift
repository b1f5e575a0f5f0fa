import EaselModel

// An editing trace replayed into one text, as `easel bench text` replays it
// natively (`TextTrace.replay`): each patch deletes, then types at its
// position, making the ops a replica would send. As natively, the patches
// are read before the replay and what it made is freed after it, so a
// timed replay is the model's work alone (it had also read the patches and
// freed 260,000 ops: a third of the module's time).

private struct TracePatch {
    var position: Int
    var deleted: Int
    var inserted: [Unicode.Scalar]
}

nonisolated(unsafe) private var tracePatches: [TracePatch] = []
nonisolated(unsafe) private var replayed: (text: TextSequence, ops: [TextOp])?

/// Reads a trace's patches: little-endian u32s, each a position, a count
/// deleted, a count typed and that many scalars. Returns how many patches,
/// or -1 (keeping none) for bytes that are not patches.
@_cdecl("easel_text_trace_load")
public func easelTextTraceLoad(_ pointer: UnsafeRawPointer, _ count: Int32) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0)))
    // -1 for a word past the largest Int (a 32-bit one, in the module),
    // which no position or count can be.
    func word(_ index: Int) -> Int {
        Int(exactly: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self).littleEndian) ?? -1
    }
    let words = raw.count / 4
    var patches: [TracePatch] = []
    var index = 0
    tracePatches = []
    replayed = nil
    while index + 3 <= words {
        let position = word(index)
        let deleted = word(index + 1)
        let inserted = word(index + 2)
        index += 3
        guard inserted >= 0, inserted <= words - index else { return -1 }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(inserted)
        for offset in 0..<inserted {
            guard let value = UInt32(exactly: word(index + offset)), let scalar = Unicode.Scalar(value) else { return -1 }
            scalars.append(scalar)
        }
        index += inserted
        patches.append(TracePatch(position: position, deleted: deleted, inserted: scalars))
    }
    guard index == words, raw.count % 4 == 0 else { return -1 }
    tracePatches = patches
    return Int32(patches.count)
}

/// Replays the loaded patches into a fresh text, keeping the text and the
/// ops made until `easel_text_trace_result`. Returns the text's length in
/// scalars, or -1 when a patch does not fit the text as it stands.
@_cdecl("easel_text_trace_replay")
public func easelTextTraceReplay() -> Int32 {
    var text = TextSequence()
    var ops: [TextOp] = []
    ops.reserveCapacity(tracePatches.count)
    var counter: UInt64 = 1
    for patch in tracePatches {
        guard patch.position >= 0, patch.deleted >= 0, patch.deleted <= text.count - patch.position else { return -1 }
        if patch.deleted > 0 {
            ops.append(.delete(text.delete(patch.position..<patch.position + patch.deleted)))
        }
        if !patch.inserted.isEmpty {
            ops.append(
                .insert(text.insert(patch.inserted, at: patch.position, id: OpID(counter: counter, replica: ReplicaID(rawValue: 1))))
            )
            counter += UInt64(patch.inserted.count)
        }
    }
    replayed = (text, ops)
    return Int32(text.count)
}

/// Leaves the last replay's text, in UTF-8, as the result, and frees what
/// the replay made. Returns its length in scalars, or -1 with no replay.
@_cdecl("easel_text_trace_result")
public func easelTextTraceResult() -> Int32 {
    guard let text = replayed?.text else { return -1 }
    replayed = nil
    setResult(Array(text.string.utf8))
    return Int32(text.count)
}
