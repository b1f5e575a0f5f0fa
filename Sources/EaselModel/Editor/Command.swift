/// A command from a button, a menu or a bot script.
public enum Command: Hashable, Sendable {
    /// Puts a new entity on top, centred at a screen point.
    case place(NewEntity, at: Point)
    case deleteSelection
    /// Copies the selection (new IDs, offset, just above each original) and
    /// selects the copies.
    case duplicateSelection
    /// Moves each selected entity past the next entity above it that
    /// overlaps it (`canBringForward` says whether any would move).
    case bringForward
    /// Moves each selected entity past the next entity below it that overlaps it.
    case sendBackward
    /// Moves the selection above every other entity, keeping its own order.
    case bringToFront
    /// Moves the selection below every other entity, keeping its own order.
    case sendToBack
    /// Deletes every visible entity.
    case clearAll
    /// Sets a style on every selected entity that has the field.
    case setStyle(StyleChange)
    /// Makes a text read `String`: the characters that differ are deleted
    /// and typed, so edits by others elsewhere in it are kept.
    case editText(EntityID, String)
    /// Replaces the characters at `range` (positions in the text as it
    /// reads) with others: typing, deleting, pasting. Undo takes back
    /// typing a word at a time.
    case replaceText(EntityID, range: Range<Int>, with: [Unicode.Scalar])
    case undo
    case redo
    /// Changes the tool and style of strokes drawn from now on (no ops).
    case setDrawing(DrawingSettings)
    /// Restores the default pan and zoom (no ops).
    case resetViewport
    /// Pans or zooms the view (no ops): see `ViewportChange`.
    case setViewport(ViewportChange)
    /// Selects every visible entity but erasers (no ops).
    case selectAll
    /// Empties the selection (no ops).
    case clearSelection
    /// A clipping's entities, as new ones on top with its centre at a
    /// screen point, in one transaction; they become the selection.
    case paste(Clipping, at: Point)
    /// Whether what is placed from now on becomes the selection
    /// (`EditorState.selectsPlaced`; no ops).
    case selectPlaced(Bool)
    /// Moves the selection by document units, in one transaction (the
    /// arrow keys).
    case nudge(by: Vector)
    /// Changes the document's background, for everyone.
    case setBackground(BackgroundChange)
}

/// What `setBackground` changes: the colour, or the image (its blob, its
/// box in document units centred at the origin, how it fills the box), or
/// takes the image away. The colour and the image are separate registers,
/// so one person's colour and another's image both survive.
public enum BackgroundChange: Hashable, Sendable {
    case color(Color)
    case image(BlobHash, width: Float, height: Float, fit: BackgroundFit)
    case noImage
}

/// How `setViewport` moves the view; points and sizes in screen units.
public enum ViewportChange: Hashable, Sendable {
    /// Moves the document by a screen translation (a wheel or trackpad scroll).
    case pan(by: Vector)
    /// Zooms by a factor, keeping the document point under `around` still.
    case zoom(by: Float, around: Point)
    /// Zooms to a level (1 is 100 %), keeping the point under `around` still.
    case zoomTo(Float, around: Point)
    /// Shows every entity (`.content`) or the selected ones in a screen of
    /// this size, centred, with a margin; at most 100 % for the content, 400 %
    /// for a selection. Refused when there is nothing to show.
    case fit(FitTarget, width: Float, height: Float)
}

/// What `ViewportChange.fit` shows.
public enum FitTarget: Hashable, Sendable {
    case content
    case selection
}

/// What `place` creates.
public enum NewEntity: Hashable, Sendable {
    case emoji(String, size: Float)
    case shape(ShapeKind, width: Float, height: Float)
    /// Style and alignment are written only when they are not the
    /// registers' defaults (regular, left).
    case text(String, font: String, size: Float, style: TextStyle = .regular, alignment: TextAlignment = .left)
    /// An image by the SHA-256 of its bytes; storing blobs comes later.
    case image(BlobHash, width: Float, height: Float)

    var kind: EntityKind {
        switch self {
        case .emoji: .emoji
        case .shape: .shape
        case .text: .text
        case .image: .image
        }
    }

    var fields: [Field] {
        switch self {
        case .emoji(let character, let size): [.character(character), .size(size)]
        case .shape(let shape, let width, let height): [.shape(shape), .width(width), .height(height)]
        case .text(let string, let font, let size, let style, let alignment):
            [.text(string), .font(font), .size(size)] + (style != .regular ? [.textStyle(style)] : [])
                + (alignment != .left ? [.alignment(alignment)] : [])
        case .image(let blob, let width, let height): [.blob(blob), .width(width), .height(height)]
        }
    }
}

/// One style field to set on the selection.
public enum StyleChange: Hashable, Sendable {
    case color(Color)
    case fill(Color)
    case weight(Float)
    case font(String)
    case size(Float)
    case textStyle(TextStyle)
    case alignment(TextAlignment)

    var field: Field {
        switch self {
        case .color(let value): .color(value)
        case .fill(let value): .fill(value)
        case .weight(let value): .weight(value)
        case .font(let value): .font(value)
        case .size(let value): .size(value)
        case .textStyle(let value): .textStyle(value)
        case .alignment(let value): .alignment(value)
        }
    }
}
