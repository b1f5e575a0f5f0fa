/// An outline as bytes, every number's exact bits: what the golden file
/// holds and the WebAssembly module returns, so native and WebAssembly
/// outlines are compared bit for bit (Docs/drawing.md gives the layout).
extension InkOutline {
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: 64)
        func point(_ point: Point) {
            writer.float(point.x)
            writer.float(point.y)
        }
        for piece in pieces {
            switch piece {
            case .dot(let center, let radius):
                writer.byte(1)
                point(center)
                writer.float(radius)
            case .run(let run):
                writer.byte(2)
                writer.uint32(UInt32(run.left.count))
                for side in run.left { point(side) }
                for side in run.right { point(side) }
                point(run.start)
                writer.float(run.startRadius)
                point(run.end)
                writer.float(run.endRadius)
            case .arrowhead(let one, let tip, let other):
                writer.byte(3)
                point(one)
                point(tip)
                point(other)
            }
        }
        return writer.bytes
    }
}
