extension Op {
    /// Calls `body` with every blob the op writes into a field: an image's,
    /// or the document's background image. The zero hash (no background
    /// image) names no blob and is skipped.
    public func forEachBlob(_ body: (BlobHash) -> Void) {
        switch action {
        case .create(_, let fields):
            for field in fields { if case .blob(let blob) = field, blob != .none { body(blob) } }
        case .set(_, .blob(let blob)) where blob != .none:
            body(blob)
        default:
            break
        }
    }

    /// Whether the op writes this blob into a field.
    public func refers(to blob: BlobHash) -> Bool {
        var found = false
        forEachBlob { if $0 == blob { found = true } }
        return found
    }
}

extension Document {
    /// The blobs the document shows: its images' and its background's, each
    /// once, in the order drawn.
    public var shownBlobs: [BlobHash] {
        var seen: Set<BlobHash> = []
        var blobs: [BlobHash] = []
        if let image = background.image, seen.insert(image.blob).inserted { blobs.append(image.blob) }
        // From the records, not `entities`: building every entity (texts'
        // strings, strokes' samples) to find a few images made this the
        // busiest call of a soak's bots, which look ten times a second.
        for slot in zOrderedSlots {
            let record = records[Int(slot)]
            guard record.kind == .image, record.alive.value, seen.insert(record.blob.value).inserted else { continue }
            blobs.append(record.blob.value)
        }
        return blobs
    }
}
