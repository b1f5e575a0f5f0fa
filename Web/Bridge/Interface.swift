import EaselModel
import EaselProtocol
import EaselSync

// The module's interface, declared once: every export with its parameters,
// every gesture and command by name (a command's named arguments with the
// slot of `easel_session_command` each fills), the session's flags, the
// statuses a call answers, and the enums the page passes. The bridge
// dispatches from these tables; `easel_interface` hands them to the
// JavaScript shell, which calls by name through them; and a Node test holds
// them against the module's real exports and the @_cdecl signatures.

/// Where a named argument travels in `easel_session_command`.
enum Slot: String, Sendable {
    case integer, a, b, c, d, text, extra
}

/// A command's arguments as the bridge reads them from the slots.
struct CommandArguments {
    var integer: Int32
    var a: Float
    var b: Float
    var c: Float
    var d: Float
    var text: String
    var extra: String

    var point: Point { Point(x: a, y: b) }
    var color: Color { Color(rawValue: UInt32(bitPattern: integer)) }
}

/// What a command's entry makes of its arguments: a command for the
/// editor, or a status answered without one (`Status`).
enum CommandRequest {
    case perform(Command)
    case answer(Int32)
}

/// What a call of the module answers, one convention for all: 0 done; -1
/// the editor refused it; -2 no such session or kind; -3 an argument out of
/// its range. A query answers 1 with its value in the result buffer, or 0
/// for none.
enum Status: Int32, CaseIterable {
    case done = 0
    case refused = -1
    case unknown = -2
    case outOfRange = -3

    var name: String {
        switch self {
        case .done: "done"
        case .refused: "refused"
        case .unknown: "unknown"
        case .outOfRange: "outOfRange"
        }
    }
}

struct CommandEntry: Sendable {
    let name: String
    let arguments: [(name: String, slot: Slot)]
    let make: @Sendable (CommandArguments, WebSession) -> CommandRequest
}

/// Every command, its kind its place here plus one.
let commandTable: [CommandEntry] = [
    CommandEntry(name: "placeEmoji", arguments: [("x", .a), ("y", .b), ("size", .c), ("emoji", .text)]) { args, _ in
        .perform(.place(.emoji(args.text, size: args.c), at: args.point))
    },
    CommandEntry(
        name: "placeShape", arguments: [("shape", .integer), ("x", .a), ("y", .b), ("width", .c), ("height", .d)]
    ) { args, _ in
        guard let shape = UInt8(exactly: args.integer).flatMap(ShapeKind.init(rawValue:)) else {
            return .answer(Status.outOfRange.rawValue)
        }
        return .perform(.place(.shape(shape, width: args.c, height: args.d), at: args.point))
    },
    CommandEntry(
        name: "placeText",
        arguments: [
            ("text", .text), ("font", .extra), ("x", .a), ("y", .b), ("size", .c), ("style", .integer),
            ("alignment", .d),
        ]
    ) { args, _ in
        guard let style = UInt8(exactly: args.integer).flatMap(TextStyle.init(rawValue:)),
            let alignment = UInt8(exactly: args.d).flatMap(TextAlignment.init(rawValue:))
        else { return .answer(Status.outOfRange.rawValue) }
        return .perform(
            .place(.text(args.text, font: args.extra, size: args.c, style: style, alignment: alignment), at: args.point))
    },
    CommandEntry(name: "deleteSelection", arguments: []) { _, _ in .perform(.deleteSelection) },
    CommandEntry(name: "duplicateSelection", arguments: []) { _, _ in .perform(.duplicateSelection) },
    CommandEntry(name: "bringForward", arguments: []) { _, _ in .perform(.bringForward) },
    CommandEntry(name: "sendBackward", arguments: []) { _, _ in .perform(.sendBackward) },
    CommandEntry(name: "clearAll", arguments: []) { _, _ in .perform(.clearAll) },
    CommandEntry(name: "undo", arguments: []) { _, _ in .perform(.undo) },
    CommandEntry(name: "redo", arguments: []) { _, _ in .perform(.redo) },
    CommandEntry(name: "resetViewport", arguments: []) { _, _ in .perform(.resetViewport) },
    CommandEntry(name: "setColor", arguments: [("color", .integer)]) { args, _ in
        .perform(.setStyle(.color(args.color)))
    },
    CommandEntry(name: "setFill", arguments: [("color", .integer)]) { args, _ in
        .perform(.setStyle(.fill(args.color)))
    },
    CommandEntry(name: "setWeight", arguments: [("weight", .a)]) { args, _ in .perform(.setStyle(.weight(args.a))) },
    CommandEntry(name: "setFont", arguments: [("font", .text)]) { args, _ in .perform(.setStyle(.font(args.text))) },
    CommandEntry(name: "setSize", arguments: [("size", .a)]) { args, _ in .perform(.setStyle(.size(args.a))) },
    CommandEntry(name: "setTextStyle", arguments: [("style", .integer)]) { args, _ in
        guard let style = UInt8(exactly: args.integer).flatMap(TextStyle.init(rawValue:)) else {
            return .answer(Status.outOfRange.rawValue)
        }
        return .perform(.setStyle(.textStyle(style)))
    },
    CommandEntry(name: "setAlignment", arguments: [("alignment", .integer)]) { args, _ in
        guard let alignment = UInt8(exactly: args.integer).flatMap(TextAlignment.init(rawValue:)) else {
            return .answer(Status.outOfRange.rawValue)
        }
        return .perform(.setStyle(.alignment(alignment)))
    },
    CommandEntry(name: "editSelectedText", arguments: [("text", .text)]) { args, session in
        guard let target = session.oneSelectedText else { return .answer(Status.refused.rawValue) }
        return .perform(.editText(target, args.text))
    },
    CommandEntry(
        name: "setDrawing",
        arguments: [("color", .integer), ("weight", .a), ("tool", .b), ("arrow", .c), ("action", .d)]
    ) { args, _ in
        guard let tool = UInt8(exactly: args.b).flatMap(StrokeTool.init(rawValue:)),
            let action = UInt8(exactly: args.d).flatMap(DrawingAction.init(rawValue:))
        else { return .answer(Status.outOfRange.rawValue) }
        return .perform(
            .setDrawing(
                DrawingSettings(
                    action: action, tool: tool, color: args.color, weight: args.a,
                    endCap: args.c != 0 ? .arrow : .round)))
    },
    CommandEntry(name: "shapeTool", arguments: [("shape", .b), ("fill", .integer)]) { args, session in
        guard let shape = UInt8(exactly: args.b).flatMap(ShapeKind.init(rawValue:)) else {
            return .answer(Status.outOfRange.rawValue)
        }
        var settings = session.client.editor.state.drawing
        settings.action = .shape
        settings.shape = shape
        settings.fill = args.color
        return .perform(.setDrawing(settings))
    },
    CommandEntry(name: "backgroundColor", arguments: [("color", .integer)]) { args, _ in
        .perform(.setBackground(.color(args.color)))
    },
    CommandEntry(name: "backgroundNoImage", arguments: []) { _, _ in .perform(.setBackground(.noImage)) },
    CommandEntry(name: "bringToFront", arguments: []) { _, _ in .perform(.bringToFront) },
    CommandEntry(name: "sendToBack", arguments: []) { _, _ in .perform(.sendToBack) },
    CommandEntry(name: "pan", arguments: [("dx", .a), ("dy", .b)]) { args, _ in
        .perform(.setViewport(.pan(by: Vector(dx: args.a, dy: args.b))))
    },
    CommandEntry(name: "zoomBy", arguments: [("x", .a), ("y", .b), ("factor", .c)]) { args, _ in
        .perform(.setViewport(.zoom(by: args.c, around: args.point)))
    },
    CommandEntry(name: "zoomTo", arguments: [("x", .a), ("y", .b), ("zoom", .c)]) { args, _ in
        .perform(.setViewport(.zoomTo(args.c, around: args.point)))
    },
    CommandEntry(name: "fitContent", arguments: []) { _, session in session.fit(.content) },
    CommandEntry(name: "fitSelection", arguments: []) { _, session in session.fit(.selection) },
    CommandEntry(name: "selectAll", arguments: []) { _, _ in .perform(.selectAll) },
    CommandEntry(name: "clearSelection", arguments: []) { _, _ in .perform(.clearSelection) },
    // Screen units, as the arrow keys move: the same on screen whatever the zoom.
    CommandEntry(name: "nudge", arguments: [("dx", .a), ("dy", .b)]) { args, session in
        let zoom = session.client.editor.state.viewport.zoom
        return .perform(.nudge(by: Vector(dx: args.a / zoom, dy: args.b / zoom)))
    },
    CommandEntry(name: "selectPlaced", arguments: [("on", .integer)]) { args, _ in
        .perform(.selectPlaced(args.integer != 0))
    },
    CommandEntry(name: "paste", arguments: [("clipping", .text), ("x", .a), ("y", .b)]) { args, _ in
        guard let clipping = try? ClippingJSON.decode(args.text) else { return .answer(Status.outOfRange.rawValue) }
        return .perform(.paste(clipping, at: args.point))
    },
    // Typing, deleting and pasting in place: characters `start` to `end` of
    // the one selected text (counted in Unicode scalars) become `text`.
    CommandEntry(name: "replaceSelectedText", arguments: [("start", .a), ("end", .b), ("text", .text)]) {
        args, session in
        guard let target = session.oneSelectedText else { return .answer(Status.refused.rawValue) }
        guard let start = Int(exactly: args.a), let end = Int(exactly: args.b), start >= 0, start <= end else {
            return .answer(Status.outOfRange.rawValue)
        }
        return .perform(.replaceText(target, range: start..<end, with: Array(args.text.unicodeScalars)))
    },
]

extension WebSession {
    /// Fit to content or to the selection, in the canvas the page gave.
    func fit(_ target: FitTarget) -> CommandRequest {
        guard let size = canvasSize else { return .answer(Status.refused.rawValue) }
        return .perform(.setViewport(.fit(target, width: size.width, height: size.height)))
    }
}

/// Every gesture, its kind its place here plus one; screen units. `x`
/// carries a translation's dx, a pinch's scale or a rotation's angle.
let gestureTable: [(name: String, make: @Sendable (Point, DrawPoint) -> GestureEvent)] = [
    ("tap", { point, _ in .tap(at: point) }),
    ("dragBegan", { point, _ in .dragBegan(at: point) }),
    ("dragChanged", { point, _ in .dragChanged(translation: Vector(dx: point.x, dy: point.y)) }),
    ("dragEnded", { point, _ in .dragEnded(translation: Vector(dx: point.x, dy: point.y)) }),
    ("dragCancelled", { _, _ in .dragCancelled }),
    ("pinchBegan", { point, _ in .pinchBegan(around: point) }),
    ("pinchChanged", { point, _ in .pinchChanged(scale: point.x) }),
    ("pinchEnded", { point, _ in .pinchEnded(scale: point.x) }),
    ("pinchCancelled", { _, _ in .pinchCancelled }),
    ("rotateBegan", { _, _ in .rotateBegan }),
    ("rotateChanged", { point, _ in .rotateChanged(angle: point.x) }),
    ("rotateEnded", { point, _ in .rotateEnded(angle: point.x) }),
    ("rotateCancelled", { _, _ in .rotateCancelled }),
    ("drawBegan", { _, sample in .drawBegan(sample) }),
    ("drawMoved", { _, sample in .drawMoved([sample]) }),
    ("drawEnded", { _, _ in .drawEnded }),
]

/// What `easel_session_flags` answers, a bit each.
enum SessionFlag: Int32, CaseIterable {
    case canUndo = 1
    case canRedo = 2
    /// Only when an entity overlapping a selected one lies that way.
    case canBringForward = 4
    case canSendBackward = 8
    case hasSelection = 16
    case gestureInFlight = 32
    /// Edits the server has not acknowledged.
    case unacknowledged = 64
    case canBringToFront = 128
    case canSendToBack = 256
    case hasText = 512
    case hasShape = 1024
    /// Exactly one entity is selected, a text.
    case oneText = 2048
    /// The server refused the token (`ErrorCode.refusesAccess`):
    /// reconnecting with it cannot help.
    case accessRefused = 4096
    /// A render brought in only part of the entities the screen newly
    /// shows (`broughtInPerRender`): the next brings in more.
    case moreToDraw = 8192

    var name: String {
        switch self {
        case .canUndo: "canUndo"
        case .canRedo: "canRedo"
        case .canBringForward: "canBringForward"
        case .canSendBackward: "canSendBackward"
        case .hasSelection: "hasSelection"
        case .gestureInFlight: "gestureInFlight"
        case .unacknowledged: "unacknowledged"
        case .canBringToFront: "canBringToFront"
        case .canSendToBack: "canSendToBack"
        case .moreToDraw: "moreToDraw"
        case .hasText: "hasText"
        case .hasShape: "hasShape"
        case .oneText: "oneText"
        case .accessRefused: "accessRefused"
        }
    }
}

/// How the page names the retry policies `easel_retry_delay` takes.
let retryPolicies: [(name: String, backoff: Backoff)] = [
    ("reconnect", .reconnect), ("blobTransfer", .blobTransfer), ("blobShown", .blobShown),
]

/// Every export and its parameters, as the @_cdecl functions declare them
/// (the Node test reads both and compares), written as the JSON the shell
/// reads: a literal costs the module far less than building it.
let exportsJSON: StaticString = """
    {"easel_interface":[],"easel_alloc":["count"],"easel_free":["pointer"],"easel_result_pointer":[],\
    "easel_result_length":[],"easel_decode":["pointer","count","json"],"easel_refused_batch_present":[],\
    "easel_refused_batch":[],"easel_document_open":[],"easel_document_close":["handle"],\
    "easel_document_receive":["handle","pointer","count","json"],"easel_document_hash":["handle"],\
    "easel_document_name_problem":["pointer","count"],"easel_new_replica":[],\
    "easel_retry_delay":["policy","failures"],"easel_blob_failure":["status"],\
    "easel_ink_outline":["pointer","count","tool","weight","endCap"],"easel_drawing_weights":["tool","action"],\
    "easel_render_filters":[],"easel_text_trace_load":["pointer","count"],"easel_text_trace_replay":[],"easel_text_trace_result":[],\
    "easel_session_open":["pointer","count","now"],\
    "easel_session_restore":["pointer","count","saved","savedCount","now"],"easel_session_close":["handle"],\
    "easel_session_connection_opened":["handle","now"],"easel_session_connection_closed":["handle","now"],\
    "easel_session_receive":["handle","pointer","count","now"],"easel_session_tick":["handle","now"],\
    "easel_session_take_outputs":["handle"],"easel_session_connection_state":["handle"],\
    "easel_session_last_error":["handle"],"easel_session_moved_to":["handle"],"easel_session_replica":["handle"],\
    "easel_session_state_hash":["handle"],"easel_session_flags":["handle"],"easel_session_selection":["handle"],\
    "easel_session_saved":["handle"],"easel_session_render":["handle"],"easel_session_waiting":["handle"],\
    "easel_session_canvas_size":["handle","width","height"],"easel_session_preview":["handle"],\
    "easel_session_viewport":["handle"],"easel_session_emoji_key":["handle"],\
    "easel_session_gesture":["handle","kind","x","y","time","force","now"],\
    "easel_session_pointer":["handle","x","y","inside","now"],\
    "easel_session_command":["handle","kind","integer","a","b","c","d","text","textCount","extra","extraCount",\
    "now"],"easel_session_placing_spot":["handle","x","y"],"easel_session_peers":["handle"],\
    "easel_session_copy":["handle"],"easel_session_export_svg":["handle","selectionOnly","background"],\
    "easel_session_selection_frame":["handle"],"easel_session_selected_text":["handle"],\
    "easel_session_place_caret":["handle","anchor","head","now"],"easel_session_caret":["handle"],\
    "easel_session_place_image":["handle","hex","hexCount","x","y","width","height","now"],\
    "easel_session_set_background_image":["handle","hex","hexCount","width","height","fit","now"],\
    "easel_session_blob_stored":["handle","hex","hexCount"],\
    "easel_session_blob_failed":["handle","hex","hexCount","reason","reasonCount"],\
    "easel_session_awaited_blobs":["handle"]}
    """

extension JSONWriter {
    /// An object of names and numbers.
    mutating func pairs(_ pairs: [(String, Int)]) {
        object { writer in
            for (name, value) in pairs {
                writer.key(name)
                writer.integer(value)
            }
        }
    }
}

/// The tables above as one JSON object.
func interfaceJSON() -> [UInt8] {
    var out = JSONWriter(capacity: 8192)
    out.object { out in
        out.key("exports")
        out.embed(exportsJSON.description)
        out.key("gestures")
        out.pairs(gestureTable.indices.map { (gestureTable[$0].name, $0 + 1) })
        out.key("commands")
        out.object { out in
            for index in commandTable.indices {
                out.key(commandTable[index].name)
                out.object { out in
                    out.key("kind")
                    out.integer(index + 1)
                    out.key("args")
                    out.object { out in
                        for argument in commandTable[index].arguments {
                            out.key(argument.name)
                            out.string(argument.slot.rawValue)
                        }
                    }
                }
            }
        }
        out.key("flags")
        out.pairs(SessionFlag.allCases.map { ($0.name, Int($0.rawValue)) })
        out.key("status")
        out.pairs(Status.allCases.map { ($0.name, Int($0.rawValue)) })
        out.key("blobFailures")
        out.object { out in
            for failure in BlobFailure.allCases {
                out.key(failure.description)
                out.object { out in
                    out.key("code")
                    out.integer(Int(failure.rawValue))
                    out.key("transient")
                    out.bool(failure.isTransient)
                }
            }
        }
        out.key("retryPolicies")
        out.pairs(retryPolicies.indices.map { (retryPolicies[$0].name, $0) })
        out.key("enums")
        out.object { out in
            out.key("tool")
            out.pairs(StrokeTool.allCases.map { ($0.wireName, Int($0.rawValue)) })
            out.key("shape")
            out.pairs(ShapeKind.allCases.map { ($0.wireName, Int($0.rawValue)) })
            out.key("textStyle")
            out.pairs(TextStyle.allCases.map { ($0.wireName, Int($0.rawValue)) })
            out.key("alignment")
            out.pairs(TextAlignment.allCases.map { ($0.wireName, Int($0.rawValue)) })
            out.key("fit")
            out.pairs(BackgroundFit.allCases.map { ($0.wireName, Int($0.rawValue)) })
            out.key("drawingAction")
            out.pairs([
                ("ink", Int(DrawingAction.ink.rawValue)), ("eraseObjects", Int(DrawingAction.eraseObjects.rawValue)),
                ("lasso", Int(DrawingAction.lasso.rawValue)), ("shape", Int(DrawingAction.shape.rawValue)),
            ])
            out.key("connectionState")
            out.array { out in
                for state in ["offline", "connecting", "connected", "weak"] { out.string(state) }
            }
        }
    }
    return out.bytes
}

/// The interface as JSON, in the result buffer (the shell reads it once).
@_cdecl("easel_interface")
public func easelInterface() {
    setResult(interfaceJSON())
}
