import EaselModel

/// An editing trace replayed into one text, as `easel bench text` replays
/// it natively (`TextTrace.replay`): each patch deletes, then types at its
/// position, making the ops a replica would send. The patches are
/// little-endian u32s, each a position, a count deleted, a count typed and
/// that many scalars. The text as it ends, in UTF-8, is left as the
/// result; its length in scalars is returned, or -1 for patches that do
/// not fit the text.
@_cdecl("easel_text_replay")
public func easelTextReplay(_ pointer: UnsafeRawPointer, _ count: Int32) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0)))
    func word(_ index: Int) -> Int {
        Int(raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self).littleEndian)
    }
    let words = raw.count / 4
    var text = TextSequence()
    var ops: [TextOp] = []
    var counter: UInt64 = 1
    var index = 0
    var typed: [Unicode.Scalar] = []
    while index + 3 <= words {
        let position = word(index)
        let deleted = word(index + 1)
        let inserted = word(index + 2)
        index += 3
        guard index + inserted <= words, position + deleted <= text.count else { return -1 }
        if deleted > 0 {
            ops.append(.delete(text.delete(position..<position + deleted)))
        }
        if inserted > 0 {
            typed.removeAll(keepingCapacity: true)
            for offset in 0..<inserted {
                guard let scalar = Unicode.Scalar(UInt32(word(index + offset))) else { return -1 }
                typed.append(scalar)
            }
            ops.append(.insert(text.insert(typed, at: position, id: OpID(counter: counter, replica: ReplicaID(rawValue: 1)))))
            counter += UInt64(inserted)
            index += inserted
        }
    }
    withExtendedLifetime(ops) {}
    setResult(Array(text.string.utf8))
    return Int32(text.count)
}
