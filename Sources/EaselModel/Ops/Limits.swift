/// Bounds on what one op may carry. The model refuses ops beyond them, and
/// the protocol repeats them so a server can refuse before decoding further.
public enum ModelLimits {
    /// How far from the origin a position in a push may lie, in document
    /// units, along either axis: an entity's x and y, a stroke sample's
    /// (from its stroke's origin), an erased entity's. Far beyond any
    /// canvas people draw on (Float keeps 1/16 of a unit there), it keeps
    /// absurd numbers out of every bounding box and index
    /// (`Op.validatePositions()`).
    public static let coordinate: Float = 1_000_000

    /// Longest z-order key, in bytes.
    public static let zKeyBytes = 128
    /// Longest emoji, in UTF-8 bytes (family emoji run to about 35).
    public static let characterBytes = 64
    /// Longest text content, in UTF-8 bytes.
    public static let textBytes = 16 * 1024
    /// Longest font name, in UTF-8 bytes.
    public static let fontBytes = 128
    /// Most samples in one append.
    public static let samplesPerAppend = 4096
    /// Most characters one op types: a longer paste is several ops.
    public static let scalarsPerInsert = 4096
    /// Most runs of characters one op deletes.
    public static let runsPerDelete = 4096
    /// Most runs in one piece of a text's snapshot, and most scalars of its
    /// characters not deleted: a text past them is several pieces, each
    /// well inside a message in either encoding.
    public static let runsPerTextSnapshot = 4096
    public static let scalarsPerTextSnapshot = 65_536
    /// Most characters ever typed into one text, deleted ones included
    /// (they stay as tombstones). A server refuses an insert past it.
    public static let charactersPerText = 1 << 20
    /// Most entities one eraser stroke erases; an eraser dragged across
    /// more leaves the rest as they were.
    public static let erasedEntities = 256

    static func stringLimit(of field: FieldID) -> Int {
        switch field {
        case .character: characterBytes
        case .text: textBytes
        case .font: fontBytes
        case .zKey: zKeyBytes
        default: 0
        }
    }
}
