import EaselModel
import EaselRender

/// The ink outline of samples (each four little-endian binary32 numbers:
/// x, y, time, force, a negative force meaning none) drawn with a tool
/// (its raw value), a weight and an end cap: the outline's bytes
/// (`InkOutline.encoded`) are left as the result. 0, or -3 for a tool or
/// end cap that does not exist.
@_cdecl("easel_ink_outline")
public func easelInkOutline(_ pointer: UnsafeRawPointer, _ count: Int32, _ tool: Int32, _ weight: Float, _ endCap: Int32)
    -> Int32
{
    guard tool >= 0, tool <= 255, endCap >= 0, endCap <= 255, let tool = StrokeTool(rawValue: UInt8(tool)),
        let endCap = EndCap(rawValue: UInt8(endCap))
    else { return Status.outOfRange.rawValue }
    let raw = UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0)))
    var samples: [StrokeSample] = []
    samples.reserveCapacity(raw.count / 16)
    var offset = 0
    while offset + 16 <= raw.count {
        func value(_ field: Int) -> Float {
            Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset + field * 4, as: UInt32.self).littleEndian)
        }
        let force = value(3)
        samples.append(StrokeSample(x: value(0), y: value(1), time: value(2), force: force < 0 ? nil : force))
        offset += 16
    }
    let line = InkLine(samples: samples, tool: tool, weight: weight)
    setResult(InkOutline(line, endCap: endCap, weight: weight).encoded)
    return 0
}

/// The SVG filters strokes refer to (neon's glow, the pencil's grain, the
/// blur eraser's blur), as `<filter>` elements for the page's `<defs>`:
/// the renderer's own, so the page never restates them. Left as the
/// result, in UTF-8.
@_cdecl("easel_render_filters")
public func easelRenderFilters() {
    var tools: Set<StrokeTool> = []
    for tool in StrokeTool.allCases { tools.insert(tool) }
    setResult(Array(SVGRenderer.filters(for: tools).utf8))
}

/// The weights a slider offers for a tool and drawing action (their raw
/// values) and the one it starts at: three little-endian binary32 numbers
/// (lowest, highest, default) left as the result. 0, or -3 for a tool or
/// action that does not exist.
@_cdecl("easel_drawing_weights")
public func easelDrawingWeights(_ tool: Int32, _ action: Int32) -> Int32 {
    guard tool >= 0, tool <= 255, action >= 0, action <= 255, let tool = StrokeTool(rawValue: UInt8(tool)),
        let action = DrawingAction(rawValue: UInt8(action))
    else { return Status.outOfRange.rawValue }
    let settings = DrawingSettings(action: action, tool: tool)
    let response = action == .eraseObjects ? StrokeTool.eraser.ink : tool.ink
    var bytes: [UInt8] = []
    for value in [settings.weights.lowerBound, settings.weights.upperBound, response.defaultWeight] {
        bytes.appendLittleEndian(value.bitPattern)
    }
    setResult(bytes)
    return 0
}
