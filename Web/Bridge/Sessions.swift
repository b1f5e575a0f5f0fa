import EaselModel
import EaselProtocol
import EaselRender
import EaselSync

/// One page's editing session: Easel's client sync engine, and what the
/// page was last given to draw, so `render` sends only what changed.
final class WebSession {
    var client: SyncClient
    var drawn: [EntityID: String] = [:]
    /// Each drawn entity's z-order key: an entity is put in its place again
    /// only when it is new or its key changed.
    var drawnZKeys: [EntityID: ZKey] = [:]
    /// The canvas's size in screen units, once the page says; until then
    /// every entity is drawn.
    var canvasSize: (width: Float, height: Float)?
    /// The part of the document whose entities are drawn: the visible part
    /// and half a screen's width and height around it, so a page holds the
    /// entities near the screen, not 50,000 of them, and a small pan draws
    /// nothing new. Nil: everything.
    var drawnArea: Rect?
    /// The document's state hash, until an op changes the document: hashing
    /// costs time in proportion to the document, and the page asks for it
    /// every update.
    var cachedHash: StateHash?
    /// The z-order flags (bring forward, send backward) for a selection,
    /// until the document or the selection changes: they compare boxes of
    /// entities, and the page asks every update.
    var cachedOrderFlags: (selection: Set<EntityID>, bits: Int32)?
    /// Whether the document changed since the order flags were worked out,
    /// and how many times they were asked for since.
    var orderFlagsStale = false
    var orderFlagsAsked = 0
    /// The entities an op named since the last render: only they are drawn
    /// again. Nil means every entity (a new session, a welcome).
    var touched: Set<EntityID>?
    /// The area to draw moved since the last render: the entities it brings
    /// in are drawn and those it leaves are erased; those drawn already are
    /// drawn again only if an op named them.
    var areaMoved = false
    /// Entities the area brought in that are not drawn yet, the bottom of
    /// the z-order last: a render draws `broughtInPerRender` of them.
    var toBring: [EntityID] = []
    /// The erasers that recorded nothing of what they erased, as last
    /// drawn, in z-order: when they change, the masks of the entities
    /// beneath them do, and everything is drawn again.
    var drawnErasers: [EntityID] = []
    /// What each eraser that recorded what it erased had erased when last
    /// drawn: when it changes, those entities and the new ones are drawn
    /// again, and nothing else.
    var drawnErased: [EntityID: [EntityID]] = [:]
    /// The background as last drawn: its colour, a space, its image's
    /// group; a page starts with neither.
    var drawnBackground = " "
    let renderer = SVGRenderer()
    /// The outlines of the strokes drawn last: a live stroke, this page's
    /// or a peer's, is extended sample by sample, not drawn whole again.
    var growingInk = GrowingInk()

    init(client: SyncClient) {
        self.client = client
    }

    func touch(_ op: Op) {
        touched?.insert(op.entity)
        documentChanged()
    }

    /// Forgets what was worked out from the document as it was.
    func documentChanged() {
        cachedHash = nil
        orderFlagsStale = true
    }

    /// The flags (`SessionFlag`) that compare entities' boxes or kinds:
    /// bring forward and send backward, and what kinds the selection holds.
    var orderFlags: Int32 {
        let editor = client.editor
        // They compare the selection with every entity: while only the
        // document changes (peers edit), they are worked out again every
        // 16th time the page asks (a quarter second at 60 frames a second),
        // and on a big board every (entities / 256)th: dragging zoomed out
        // at 50,000 entities while bots edited, they took 12 % of the
        // page's time in a profile (the debug module).
        orderFlagsAsked &+= 1
        let period = max(16, editor.document.recordCount / 256)
        if let cached = cachedOrderFlags, cached.selection == editor.state.selection,
            !orderFlagsStale || orderFlagsAsked % period != 0
        {
            return cached.bits
        }
        orderFlagsStale = false
        var bits: Int32 = 0
        if editor.canBringForward { bits |= SessionFlag.canBringForward.rawValue }
        if editor.canSendBackward { bits |= SessionFlag.canSendBackward.rawValue }
        if editor.canBringToFront { bits |= SessionFlag.canBringToFront.rawValue }
        if editor.canSendToBack { bits |= SessionFlag.canSendToBack.rawValue }
        let kinds = Set(editor.state.selection.compactMap { editor.document.kind(of: $0) })
        if kinds.contains(.text) { bits |= SessionFlag.hasText.rawValue }
        if kinds.contains(.shape) { bits |= SessionFlag.hasShape.rawValue }
        if editor.state.selection.count == 1 && kinds == [.text] { bits |= SessionFlag.oneText.rawValue }
        cachedOrderFlags = (editor.state.selection, bits)
        return bits
    }

    var stateHash: StateHash {
        if let cachedHash { return cachedHash }
        let hash = client.editor.document.stateHash
        cachedHash = hash
        return hash
    }

    /// Runs a local edit and notes the entities its ops name: they join the
    /// end of the outbox.
    func editing(_ edit: () throws(ModelError) -> Void) throws(ModelError) {
        let before = client.unacknowledgedCount
        try edit()
        let added = client.unacknowledgedCount - before
        guard added > 0 else { return }
        documentChanged()
        if touched != nil { for op in client.latestUnacknowledged(added) { touch(op) } }
    }
}

/// Sessions JavaScript holds by handle. WebAssembly runs this module on one
/// thread.
nonisolated(unsafe) var sessions: [Int32: WebSession] = [:]
nonisolated(unsafe) private var nextSession: Int32 = 1

/// JavaScript's clock (milliseconds since 1970, `Date.now()`).
func timestamp(_ milliseconds: Double) -> Timestamp {
    Timestamp(milliseconds: abs(milliseconds) < 9e18 ? Int64(milliseconds) : 0)
}

private func open(_ client: SyncClient) -> Int32 {
    let handle = nextSession
    nextSession += 1
    sessions[handle] = WebSession(client: client)
    return handle
}

/// The hello a session will send, as JSON (Protocol/README.md, section 2.1;
/// no `since`): document, replica, user and token in one checked message.
/// Opens the session `client` makes from it; its handle, or minus the
/// decoding error code.
private func open(
    hello pointer: UnsafeRawPointer, count: Int32, _ client: (Hello, SyncClientConfiguration) -> SyncClient
)
    -> Int32
{
    let hello: Hello
    do throws(DecodeError) {
        guard case .hello(let decoded) = try Message(json: bytes(at: pointer, count: count)) else {
            return -Int32(ErrorCode.invalidValue.rawValue)
        }
        hello = decoded
    } catch {
        return -Int32(error.code.rawValue)
    }
    return open(client(hello, SyncClientConfiguration(encoding: .binary, token: hello.token)))
}

/// A new session from its hello (JSON); its handle, or minus the decoding
/// error code.
@_cdecl("easel_session_open")
public func easelSessionOpen(_ pointer: UnsafeRawPointer, _ count: Int32, _ now: Double) -> Int32 {
    open(hello: pointer, count: count) { hello, configuration in
        SyncClient(
            document: hello.document, user: hello.user, replica: hello.replica, configuration: configuration,
            at: timestamp(now))
    }
}

/// A session resumed from what `easel_session_saved` gave (its replica,
/// counter and unacknowledged edits); the hello's replica is not used.
@_cdecl("easel_session_restore")
public func easelSessionRestore(
    _ pointer: UnsafeRawPointer, _ count: Int32, _ saved: UnsafeRawPointer, _ savedCount: Int32, _ now: Double
) -> Int32 {
    let session: SavedSession
    do throws(DecodeError) {
        session = try SavedSession(encoded: bytes(at: saved, count: savedCount))
    } catch {
        return -Int32(error.code.rawValue)
    }
    return open(hello: pointer, count: count) { hello, configuration in
        SyncClient(
            document: hello.document, user: hello.user, restoring: session, configuration: configuration,
            at: timestamp(now))
    }
}

@_cdecl("easel_session_close")
public func easelSessionClose(_ handle: Int32) {
    sessions[handle] = nil
}

// MARK: The connection

@_cdecl("easel_session_connection_opened")
public func easelSessionConnectionOpened(_ handle: Int32, _ now: Double) {
    sessions[handle]?.client.connectionOpened(at: timestamp(now))
}

@_cdecl("easel_session_connection_closed")
public func easelSessionConnectionClosed(_ handle: Int32, _ now: Double) {
    sessions[handle]?.client.connectionClosed(at: timestamp(now))
}

/// One binary message from the server: 0, its decoding error code, or -2
/// for no such session.
@_cdecl("easel_session_receive")
public func easelSessionReceive(_ handle: Int32, _ pointer: UnsafeRawPointer, _ count: Int32, _ now: Double) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    let message: Message
    do throws(DecodeError) {
        message = try Message(binary: bytes(at: pointer, count: count))
    } catch {
        return Int32(error.code.rawValue)
    }
    switch message {
    case .ops(let ops): for index in ops.indices { session.touch(ops[index].op) }
    case .welcome:
        // A snapshot may replace everything.
        session.touched = nil
        session.documentChanged()
    default: break
    }
    session.client.receive(message, at: timestamp(now))
    return 0
}

@_cdecl("easel_session_tick")
public func easelSessionTick(_ handle: Int32, _ now: Double) {
    guard let session = sessions[handle] else { return }
    session.client.tick(at: timestamp(now))
}

/// What to do since the last call, as records in the result buffer: kind 1
/// a binary message to send, kind 2 close the connection (the reason, in
/// UTF-8), kind 3 an image's place undone because its upload failed (the
/// blob's hex, a space, the reason). Returns how many.
@_cdecl("easel_session_take_outputs")
public func easelSessionTakeOutputs(_ handle: Int32) -> Int32 {
    var records = RecordWriter()
    guard let session = sessions[handle] else { return 0 }
    for output in session.client.takeOutputs() {
        switch output {
        case .send(let message): records.record(1, message.binaryEncoded())
        case .disconnect(let reason): records.record(2, reason)
        }
    }
    // Events are taken on every call, even those the page has no use for
    // (acknowledgements): left in the engine they would pile up for as
    // long as the page stays open.
    for event in session.client.takeEvents() {
        if case .placeFailed(let blob, let reason, _) = event { records.record(3, blob.hex + " " + reason) }
    }
    setResult(records.bytes)
    return records.count
}

// MARK: Reading the session

/// 0 offline, 1 connecting, 2 connected, 3 weak.
@_cdecl("easel_session_connection_state")
public func easelSessionConnectionState(_ handle: Int32) -> Int32 {
    switch sessions[handle]?.client.connectionState {
    case .connecting?: 1
    case .connected?: 2
    case .weak?: 3
    case .offline?, nil: 0
    }
}

/// The last error the server sent: its code (0 for none), with its message
/// in the result buffer.
@_cdecl("easel_session_last_error")
public func easelSessionLastError(_ handle: Int32) -> Int32 {
    guard let error = sessions[handle]?.client.lastError else { return 0 }
    setResult(Array(error.message.utf8))
    return Int32(error.code.rawValue)
}

/// The node the server last said holds the document (503 `moved to
/// <node>`): 1 with its name in the result buffer, 0 for none (the router
/// chooses).
@_cdecl("easel_session_moved_to")
public func easelSessionMovedTo(_ handle: Int32) -> Int32 {
    guard let node = sessions[handle]?.client.movedTo else { return 0 }
    setResult(Array(node.utf8))
    return 1
}

@_cdecl("easel_session_replica")
public func easelSessionReplica(_ handle: Int32) -> UInt64 {
    sessions[handle]?.client.replica.rawValue ?? 0
}

@_cdecl("easel_session_state_hash")
public func easelSessionStateHash(_ handle: Int32) -> UInt64 {
    sessions[handle]?.stateHash.rawValue ?? 0
}

/// What the toolbar may offer and the page must know, as `SessionFlag` bits.
@_cdecl("easel_session_flags")
public func easelSessionFlags(_ handle: Int32) -> Int32 {
    guard let session = sessions[handle] else { return 0 }
    let client = session.client
    let editor = client.editor
    var flags: Int32 = session.orderFlags
    func set(_ flag: SessionFlag, _ on: Bool) { if on { flags |= flag.rawValue } }
    set(.canUndo, editor.canUndo)
    set(.canRedo, editor.canRedo)
    set(.hasSelection, !editor.state.selection.isEmpty)
    set(.gestureInFlight, editor.state.gesture != nil)
    set(.unacknowledged, client.unacknowledgedCount > 0)
    set(.accessRefused, client.lastError?.code.refusesAccess ?? false)
    set(.moreToDraw, !session.toBring.isEmpty)
    return flags
}

/// The selected entities' IDs, separated by spaces, in the result buffer.
@_cdecl("easel_session_selection")
public func easelSessionSelection(_ handle: Int32) {
    let selection = sessions[handle]?.client.editor.state.selection ?? []
    setResult(Array(selection.map { $0.description }.sorted().joined(separator: " ").utf8))
}

/// The saved session (replica, counter, unacknowledged ops) in the result
/// buffer, for the page to keep across reloads.
@_cdecl("easel_session_saved")
public func easelSessionSaved(_ handle: Int32) {
    setResult(sessions[handle]?.client.savedSession.encoded() ?? [])
}

/// What changed on the canvas since the last call, as records in the result
/// buffer, in this order: kind 1 an entity drawn anew (its ID, the box its
/// paint may reach in document units as four numbers, min x, min y, max x,
/// max y, and its `<g>` element, all separated by spaces), kind 2 an entity
/// gone (its ID), kind 4 an entity to put
/// in its place (its ID, a space, the ID of the entity just above it, or
/// nothing when it goes on top; topmost first, so each one's neighbour is
/// already in place), kind 3 the whole bottom-to-top order (IDs separated
/// by spaces) after a welcome and in place of kind 4 when more than
/// `placedOneByOne` entities are placed at once, kind 5 the background when it changed
/// (its colour as `#rrggbbaa` or nothing for the default, a space, its
/// image's group or nothing). Returns how many.
///
/// Only the entities that ops named since the last call are rendered again
/// (all of them after a welcome), and only those new or moved in the
/// z-order are placed: a frame costs what changed, never the whole order.
/// Once the page gives the canvas's size, only entities on or near the
/// screen are drawn; a pan or zoom that leaves that area draws the new one
/// (an entity that leaves it gets kind 2).
@_cdecl("easel_session_render")
public func easelSessionRender(_ handle: Int32) -> Int32 {
    guard let session = sessions[handle] else { return 0 }
    let document = session.client.editor.document
    let area = session.areaToDraw()
    let layers = EraserLayers(document)
    if layers.erasers != session.drawnErasers {
        session.drawnErasers = layers.erasers
        session.touched = nil
    }
    var records = RecordWriter()
    let background =
        (document.background.color?.description ?? "") + " " + session.renderer.backgroundFragment(of: document)
    if background != session.drawnBackground {
        session.drawnBackground = background
        records.record(5, background)
    }
    var placed: [Entity] = []
    // Erasers are always drawn: entities on screen wear their masks.
    func shows(_ entity: Entity) -> Bool {
        layers.isEraser(entity.id) || (area.map { EntityGeometry(entity).documentBounds.intersects($0) } ?? true)
    }
    func draw(_ entity: Entity) {
        if session.drawnZKeys.updateValue(entity.zKey, forKey: entity.id) != entity.zKey { placed.append(entity) }
        let fragment = session.renderer.fragment(of: entity, layers: layers, growing: &session.growingInk)
        if session.drawn[entity.id] != fragment {
            session.drawn[entity.id] = fragment
            records.record(1, entity.id.description, " ", SVGRenderer.paintBoundsText(of: entity), " ", fragment)
        }
    }
    func erase(_ id: EntityID) {
        session.drawnZKeys[id] = nil
        if session.drawn.removeValue(forKey: id) != nil { records.record(2, id.description) }
    }
    if var touched = session.touched {
        if session.areaMoved {
            // One walk of the whole order for the area; the entities it
            // brings in are drawn over the renders that follow.
            var toBring: [EntityID] = []
            document.forEachEntity { entity in
                if shows(entity) {
                    if session.drawn[entity.id] == nil { toBring.append(entity.id) }
                } else if session.drawn[entity.id] != nil {
                    erase(entity.id)
                }
            }
            session.toBring = toBring.reversed()
        }
        var brought = 0
        while brought < broughtInPerRender, let id = session.toBring.popLast() {
            guard session.drawn[id] == nil, let entity = document[id], shows(entity) else { continue }
            draw(entity)
            brought += 1
        }
        // A blur eraser drawn before erasures were recorded draws what lies
        // beneath it, which may have changed.
        for id in layers.erasers where document[id].map(isBlur) ?? false { touched.insert(id) }
        // An entity wears the holes of the erasers that erased it: a changed
        // eraser draws what it erases now and what it erased before again.
        for id in touched where layers.erased[id] != nil || session.drawnErased[id] != nil {
            let now = layers.erased[id] ?? []
            touched.formUnion(now)
            touched.formUnion(session.drawnErased[id] ?? [])
            session.drawnErased[id] = layers.erased[id]
        }
        // Sorted, so the records come in the same order on every run.
        for id in touched.sorted() {
            if let entity = document[id], shows(entity) { draw(entity) } else { erase(id) }
        }
        if placed.count > placedOneByOne {
            // Many placed at once (an area moved in): the whole order costs
            // the page less than a search for each one's neighbour.
            // IDs only: a render that brings in part of a pan's entities
            // sends this each time, and building every entity was most of it.
            var drawn: [String] = []
            for id in document.zOrder where session.drawn[id] != nil { drawn.append(id.description) }
            records.record(3, drawn.joined(separator: " "))
        } else {
            placed.sort { ($0.zKey, $0.id) > ($1.zKey, $1.id) }
            for entity in placed {
                // The nearest entity above it that the page has.
                var above = document.entity(above: entity.id)
                while let id = above, session.drawn[id] == nil { above = document.entity(above: id) }
                records.record(4, entity.id.description + " " + (above?.description ?? ""))
            }
        }
    } else {
        session.drawnErased = layers.erased
        // The screen first: the entities around it that the page does not
        // have yet come over the renders that follow, as a pan's do. (A
        // welcome of 50,000 drew the 3,000 around a screen at once, four
        // times those on it, before the page could show any.)
        let visible = session.visibleArea()
        var entities: [Entity] = []
        var present = Set<EntityID>()
        var later: [EntityID] = []
        document.forEachEntity { entity in
            guard shows(entity) else { return }
            present.insert(entity.id)
            if session.drawn[entity.id] == nil, let visible, !layers.isEraser(entity.id),
                !EntityGeometry(entity).documentBounds.intersects(visible)
            {
                later.append(entity.id)
            } else {
                entities.append(entity)
            }
        }
        for entity in entities { draw(entity) }
        session.toBring = later.reversed()
        let gone = session.drawn.keys.filter { !present.contains($0) }
        for id in gone { erase(id) }
        if !entities.isEmpty || !gone.isEmpty {
            records.record(3, entities.map { $0.id.description }.joined(separator: " "))
        }
    }
    session.touched = []
    session.areaMoved = false
    setResult(records.bytes)
    return records.count
}

/// How many entities around the screen are still to be drawn (`moreToDraw`).
@_cdecl("easel_session_waiting")
public func easelSessionWaiting(_ handle: Int32) -> Int32 {
    Int32(clamping: sessions[handle]?.toBring.count ?? 0)
}

/// Past this many entities placed in one render, the page gets the whole
/// order (kind 3) instead of a place for each (kind 4).
let placedOneByOne = 64

/// At most this many entities a pan or zoom newly shows are drawn in one
/// render; the rest in the renders after. Zoomed out to fit 50,000, all
/// 47,000 at once were one frame of 2.5 s.
let broughtInPerRender = 2_000

private func isBlur(_ entity: Entity) -> Bool {
    if case .stroke(let stroke) = entity.content { stroke.tool == .blur } else { false }
}

/// The canvas's size in screen units: from then on only the entities on or
/// near the screen are drawn.
@_cdecl("easel_session_canvas_size")
public func easelSessionCanvasSize(_ handle: Int32, _ width: Float, _ height: Float) {
    guard let session = sessions[handle], width > 0, height > 0, width.isFinite, height.isFinite else { return }
    session.canvasSize = (width, height)
}

extension WebSession {
    /// The area whose entities the next render draws; when the screen left
    /// the area drawn so far, a new one, and everything is looked at again.
    func areaToDraw() -> Rect? {
        guard let visible = visibleArea() else { return nil }
        if let drawnArea, drawnArea.contains(visible) { return drawnArea }
        let area = Rect(
            minX: visible.minX - visible.width / 2, minY: visible.minY - visible.height / 2,
            maxX: visible.maxX + visible.width / 2, maxY: visible.maxY + visible.height / 2)
        drawnArea = area
        areaMoved = true
        return area
    }

    /// The part of the document on the screen, once the page gave its size.
    func visibleArea() -> Rect? {
        guard let size = canvasSize else { return nil }
        let viewport = client.editor.state.displayedViewport
        let corner = viewport.documentPoint(fromScreen: Point(x: 0, y: 0))
        let far = viewport.documentPoint(fromScreen: Point(x: size.width, y: size.height))
        return Rect(
            minX: min(corner.x, far.x), minY: min(corner.y, far.y), maxX: max(corner.x, far.x),
            maxY: max(corner.y, far.y))
    }
}

/// What gestures in flight show before they commit, this page's and its
/// peers' (from their presence), as records in the result buffer: kind 1,
/// an entity ID, a space, the `transform` attribute its group takes
/// meanwhile (this page's gesture wins over a peer's on the same entity);
/// kind 2, a peer's replica, a space, the `<g>` of the stroke it is drawing,
/// in document units. Returns how many.
@_cdecl("easel_session_preview")
public func easelSessionPreview(_ handle: Int32) -> Int32 {
    guard let session = sessions[handle] else { return 0 }
    let editor = session.client.editor
    var records = RecordWriter()
    var moved = Set<EntityID>()
    for id in (editor.state.gesture?.entities ?? []).sorted() {
        guard var entity = editor.document[id] else { continue }
        entity.transform = editor.state.displayedTransform(of: entity)
        moved.insert(id)
        records.record(1, id.description + " " + session.renderer.transformAttribute(of: entity))
    }
    // This page's own eraser, lasso or shape in flight, as a trace.
    switch editor.state.gesture {
    case .erasing(let path)?:
        records.record(2, "self " + TraceSVG.svg(path, .eraser(weight: editor.state.drawing.weight)))
    case .lassoing(let path)?:
        records.record(2, "self " + TraceSVG.svg(path, .lasso))
    case .shaping(let from, let to)?:
        records.record(2, "self " + TraceSVG.svg([from, to], .box))
    default:
        break
    }
    // Ended gestures too, while their ops are awaited: a committed drag
    // never jumps back for the frames between.
    for peer in session.client.peerGestures {
        let gesture = peer.gesture
        if case .drawing(let tool, _, let weight, let points) = gesture, tool == .eraser || tool == .blur {
            // A peer's pixel or blur eraser masks nothing until its ops
            // arrive: its trail shows where it goes.
            records.record(2, peer.replica.description + " " + TraceSVG.svg(points, .eraser(weight: weight)))
            continue
        }
        if case .drawing(let tool, let color, let weight, let points) = gesture {
            let stroke = Entity(
                preview: EntityID(OpID(counter: 1, replica: peer.replica)), transform: Transform(),
                style: Style(color: color, weight: weight),
                content: .stroke(
                    StrokeContent(
                        tool: tool, endCap: .round, samples: points.map { StrokeSample(x: $0.x, y: $0.y, time: 0) })))
            records.record(
                2,
                peer.replica.description + " "
                    + session.renderer.fragment(of: stroke, layers: .none, growing: &session.growingInk))
            continue
        }
        for id in gesture.entities where !moved.contains(id) {
            guard var entity = editor.document[id], let transform = gesture.transform(of: entity) else { continue }
            entity.transform = transform
            moved.insert(id)
            records.record(1, id.description + " " + session.renderer.transformAttribute(of: entity))
        }
    }
    setResult(records.bytes)
    return records.count
}

/// The viewport as displayed (an in-flight pan or zoom included), in the
/// result buffer as three little-endian binary32 numbers: pan x, pan y,
/// zoom, where screen = document × zoom + pan.
@_cdecl("easel_session_viewport")
public func easelSessionViewport(_ handle: Int32) {
    let viewport = sessions[handle]?.client.editor.state.displayedViewport ?? .standard
    var bytes: [UInt8] = []
    for value in [viewport.pan.dx, viewport.pan.dy, viewport.zoom] { bytes.appendLittleEndian(value.bitPattern) }
    setResult(bytes)
}

/// The state hash as four emoji (Protocol/README.md, section 9), in the
/// result buffer.
@_cdecl("easel_session_emoji_key")
public func easelSessionEmojiKey(_ handle: Int32) {
    setResult(Array((sessions[handle]?.stateHash.emojiKey ?? "").utf8))
}

// MARK: Input

/// A gesture, its kind from `gestureTable`, in screen units (Docs/web.md
/// says what `x`, `y`, `time` and `force` mean for each; a NaN force is
/// none): 0, or -1 when the editor refuses it (a NaN coordinate, a draw
/// point going back in time), or -2 for an unknown kind or session.
@_cdecl("easel_session_gesture")
public func easelSessionGesture(
    _ handle: Int32, _ kind: Int32, _ x: Float, _ y: Float, _ time: Float, _ force: Float, _ now: Double
) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    let point = Point(x: x, y: y)
    let drawPoint = DrawPoint(location: point, time: time, force: force.isNaN ? nil : force)
    guard gestureTable.indices.contains(Int(kind) - 1) else { return Status.unknown.rawValue }
    let event = gestureTable[Int(kind) - 1].make(point, drawPoint)
    return outcome { () throws(ModelError) in
        try session.editing { () throws(ModelError) in try session.client.send(event, at: timestamp(now)) }
    }
}

/// 0 when the editor took the input, -1 when it refused it.
func outcome(_ body: () throws(ModelError) -> Void) -> Int32 {
    do throws(ModelError) {
        try body()
        return Status.done.rawValue
    } catch {
        return Status.refused.rawValue
    }
}

/// The pointer moved to (x, y) in screen units, or left the canvas
/// (`inside` 0): shared with peers as presence.
@_cdecl("easel_session_pointer")
public func easelSessionPointer(_ handle: Int32, _ x: Float, _ y: Float, _ inside: Int32, _ now: Double) {
    sessions[handle]?.client.pointerMoved(to: inside != 0 ? Point(x: x, y: y) : nil, at: timestamp(now))
}

/// A command, its kind and arguments from `commandTable`: 0, -1 when the
/// editor refuses it, -2 for an unknown kind or session, -3 for an
/// argument out of its range.
@_cdecl("easel_session_command")
public func easelSessionCommand(
    _ handle: Int32, _ kind: Int32, _ integer: Int32, _ a: Float, _ b: Float, _ c: Float, _ d: Float,
    _ text: UnsafeRawPointer?, _ textCount: Int32, _ extra: UnsafeRawPointer?, _ extraCount: Int32, _ now: Double
) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    let string = text.map { String(decoding: bytes(at: $0, count: textCount), as: UTF8.self) } ?? ""
    let second = extra.map { String(decoding: bytes(at: $0, count: extraCount), as: UTF8.self) } ?? ""
    guard commandTable.indices.contains(Int(kind) - 1) else { return Status.unknown.rawValue }
    let arguments = CommandArguments(integer: integer, a: a, b: b, c: c, d: d, text: string, extra: second)
    let command: Command
    switch commandTable[Int(kind) - 1].make(arguments, session) {
    case .perform(let made): command = made
    case .answer(let status): return status
    }
    return outcome { () throws(ModelError) in
        try session.editing { () throws(ModelError) in try session.client.perform(command, at: timestamp(now)) }
    }
}

// MARK: Peers

/// The other people in the document, from their presence, as records in the
/// result buffer (kind 1 each, sorted by replica): replica (u64), colour
/// (u32, 0xRRGGBBAA), cursor x and y on this page's screen (f32; NaN when
/// off the canvas), idle (u8), their state against this page's (u8: 0 not at the
/// same position, 1 the same hash there, 2 another hash there: diverged),
/// then name, initials and the selected IDs separated by spaces, each a u32
/// length and UTF-8, then a u32 count (0 or 1) and that many frames around
/// their selection as this page has it, where their gesture in flight shows
/// it, on this page's screen (`frameBytes`), then their caret in a text
/// (`caretBytes`). Little-endian throughout.
@_cdecl("easel_session_peers")
public func easelSessionPeers(_ handle: Int32) -> Int32 {
    var records = RecordWriter()
    guard let client = sessions[handle]?.client else { return 0 }
    let peers = client.peers.values.sorted { $0.replica.rawValue < $1.replica.rawValue }
    let agreement = client.stateAgreement
    let viewport = client.editor.state.displayedViewport
    for peer in peers {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(peer.replica.rawValue)
        bytes.appendLittleEndian(peer.user.color.rawValue)
        let cursor = peer.cursor.map { viewport.screenPoint(fromDocument: $0) }
        bytes.appendLittleEndian((cursor?.x ?? .nan).bitPattern)
        bytes.appendLittleEndian((cursor?.y ?? .nan).bitPattern)
        bytes.append(peer.idle ? 1 : 0)
        bytes.append(
            agreement.agreeing.contains(peer.replica) ? 1 : agreement.disagreeing.contains(peer.replica) ? 2 : 0)
        bytes.appendLengthPrefixed(peer.user.name)
        bytes.appendLengthPrefixed(peer.user.initials)
        bytes.appendLengthPrefixed(peer.selection.map { $0.description }.joined(separator: " "))
        let gesture = peer.gesture
        let frame = client.editor.document.frame(of: peer.selection.prefix(256)) { entity in
            gesture?.transform(of: entity) ?? entity.transform
        }
        bytes.appendLittleEndian(UInt32(frame == nil ? 0 : 1))
        if let frame { bytes += frameBytes(frame, on: viewport) }
        bytes += caretBytes(of: peer.caret, in: client.editor.document)
        records.record(1, bytes)
    }
    setResult(records.bytes)
    return records.count
}

/// The selection as the page's clipboard text (`ClippingJSON`), in the
/// result buffer: 1, or 0 when nothing is selected.
@_cdecl("easel_session_copy")
public func easelSessionCopy(_ handle: Int32) -> Int32 {
    guard let clipping = sessions[handle]?.client.editor.clipping() else { return 0 }
    setResult(Array(ClippingJSON.encode(clipping).utf8))
    return 1
}

/// The document, or the selection (`selectionOnly` ≠ 0), as one SVG file
/// drawn by the renderer every client draws with, with or without its
/// background, in the result buffer: 1, or 0 for a selection of nothing.
/// Images refer to `blobs/<hex>`; the page puts their bytes in.
@_cdecl("easel_session_export_svg")
public func easelSessionExportSVG(_ handle: Int32, _ selectionOnly: Int32, _ background: Int32) -> Int32 {
    guard let editor = sessions[handle]?.client.editor else { return 0 }
    var options = SVGRenderer.Options()
    options.drawsBackground = background != 0
    if selectionOnly != 0 {
        let selected = editor.state.selection.filter { !editor.document.isEraser($0) }
        guard !selected.isEmpty else { return 0 }
        options.only = selected
    }
    setResult(Array(SVGRenderer(options: options).render(editor.document).utf8))
    return 1
}

/// A frame on the screen as five little-endian binary32 numbers: centre x,
/// centre y, width, height (screen units) and rotation (radians).
func frameBytes(_ frame: SelectionFrame, on viewport: Viewport) -> [UInt8] {
    let center = viewport.screenPoint(fromDocument: frame.center)
    var bytes: [UInt8] = []
    for value in [center.x, center.y, frame.width * viewport.zoom, frame.height * viewport.zoom, frame.rotation] {
        bytes.appendLittleEndian(value.bitPattern)
    }
    return bytes
}

/// The frame of this page's selection as displayed, a gesture in flight
/// and the view's pan and zoom included (`frameBytes`), in the result
/// buffer: 1, or 0 when nothing visible is selected.
@_cdecl("easel_session_selection_frame")
public func easelSessionSelectionFrame(_ handle: Int32) -> Int32 {
    guard let editor = sessions[handle]?.client.editor, let frame = editor.selectionFrame else { return 0 }
    setResult(frameBytes(frame, on: editor.state.displayedViewport))
    return 1
}

/// Where a new item placed at the screen point (x, y) goes
/// (`Editor.placingSpot`), as two little-endian binary32 screen numbers in
/// the result buffer: 1, or 0 for no such session or a point not finite.
@_cdecl("easel_session_placing_spot")
public func easelSessionPlacingSpot(_ handle: Int32, _ x: Float, _ y: Float) -> Int32 {
    guard let editor = sessions[handle]?.client.editor, x.isFinite, y.isFinite else { return 0 }
    let spot = editor.placingSpot(near: Point(x: x, y: y))
    var bytes: [UInt8] = []
    bytes.appendLittleEndian(spot.x.bitPattern)
    bytes.appendLittleEndian(spot.y.bitPattern)
    setResult(bytes)
    return 1
}

/// The one selected text entity, in the result buffer: its style (u8: 0
/// regular, 1 outlined, 2 framed), alignment (u8: 0 left, 1 centre, 2
/// right), size (f32), colour (u32, 0xRRGGBBAA), font (u32 length and
/// UTF-8), then its text (UTF-8, to the end); 0 when the selection is not
/// exactly one text entity, else 1. Little-endian.
@_cdecl("easel_session_selected_text")
public func easelSessionSelectedText(_ handle: Int32) -> Int32 {
    guard let editor = sessions[handle]?.client.editor, editor.state.selection.count == 1,
        let id = editor.state.selection.first, let entity = editor.document[id],
        case .text(let text) = entity.content
    else { return 0 }
    var bytes: [UInt8] = [text.style.rawValue, text.alignment.rawValue]
    bytes.appendLittleEndian(text.size.bitPattern)
    bytes.appendLittleEndian(entity.style.color.rawValue)
    bytes.appendLengthPrefixed(text.font)
    bytes += Array(text.string.utf8)
    setResult(bytes)
    return 1
}
