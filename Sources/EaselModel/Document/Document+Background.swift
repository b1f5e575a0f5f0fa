/// What a document is drawn on: a colour, and an image over it.
public struct Background: Hashable, Sendable {
    /// Nil until someone sets one (or set clear): the renderer's default.
    public var color: Color?
    public var image: BackgroundImage?

    public init(color: Color? = nil, image: BackgroundImage? = nil) {
        self.color = color
        self.image = image
    }
}

/// A background image: its blob, in a box of width × height document units
/// centred at the document's origin, filling the box as `fit` says. The
/// base layer everything is drawn on, so drawings stay where they were
/// drawn on it whatever the screen.
public struct BackgroundImage: Hashable, Sendable {
    public var blob: BlobHash
    public var width: Float
    public var height: Float
    public var fit: BackgroundFit

    public init(blob: BlobHash, width: Float, height: Float, fit: BackgroundFit) {
        self.blob = blob
        self.width = width
        self.height = height
        self.fit = fit
    }
}

extension Document {
    /// The document's background, from its own registers
    /// (`EntityID.document`). O(1) expected.
    public var background: Background {
        func read(_ field: FieldID) -> Field? { register(field, of: .document)?.value }
        var background = Background()
        if case .fill(let color)? = read(.fill), color != .clear { background.color = color }
        if case .blob(let blob)? = read(.blob), blob != .none, case .width(let width)? = read(.width),
            case .height(let height)? = read(.height), case .fit(let fit)? = read(.fit)
        {
            background.image = BackgroundImage(blob: blob, width: width, height: height, fit: fit)
        }
        return background
    }
}
