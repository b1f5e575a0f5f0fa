import EaselModel
import EaselProtocol
import EaselRender

/// A history as SVG frames and an index.html that scrolls through them:
/// every `every` ops and the last, all drawn in one frame (the union of
/// every state's bounds) so the canvas does not jump from frame to frame.
public struct Filmstrip: Sendable {
    public struct Frame: Sendable {
        public var position: UInt64
        public var fileName: String
        public var svg: String
        /// Who did what at this position, for the page.
        public var caption: String
    }

    public var name: String
    public var frames: [Frame]

    public init(_ history: OpHistory, every: Int, until last: UInt64? = nil) throws(ReplayError) {
        guard every > 0 else { throw ReplayError("--every must be at least 1") }
        let last = last ?? history.head
        try history.checkReachable(last)
        var states: [(position: UInt64, document: Document)] = []
        var document = history.baseDocument
        states.append((history.earliest, document))
        for logged in history.ops where logged.position <= last {
            document.apply(logged.op)
            if (logged.position - history.earliest) % UInt64(every) == 0 || logged.position == last {
                states.append((logged.position, document))
            }
        }
        let bounds = states.map { SVGRenderer.frame(of: $0.document) }
        let frame = bounds.dropFirst().reduce(bounds[0]) { $0.union($1) }
        let renderer = SVGRenderer(options: .init(frame: frame))
        let digits = String(last).count
        name = history.name
        frames = states.map { state in
            let number = String(state.position)
            let padded = String(repeating: "0", count: digits - number.count) + number
            return Frame(
                position: state.position, fileName: "frame-\(padded).svg", svg: renderer.render(state.document),
                caption: Self.caption(at: state.position, of: history, document: state.document))
        }
    }

    private static func caption(at position: UInt64, of history: OpHistory, document: Document) -> String {
        let hash = document.stateHash
        let state = "\(document.visibleCount) entities · \(hash.emojiKey)"
        guard let logged = history.op(at: position) else {
            return "position \(position) · " + (history.base == nil ? "empty document" : "snapshot") + " · " + state
        }
        return "position \(position) · \(logged.author) · \(logged.op.summary) · \(state)"
    }

    /// A page with the current frame large, a slider, and the strip of
    /// every frame; arrow keys step.
    public var indexHTML: String {
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <title>\(name.xmlEscaped) · \(frames.count) frames</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
            header { padding: 8px 12px; border-bottom: 1px solid #ddd; }
            header input { width: 100%; }
            main { flex: 1; min-height: 0; display: flex; justify-content: center; padding: 8px; background: #f4f4f4; }
            main img { max-width: 100%; max-height: 100%; background: white; box-shadow: 0 1px 4px #0003; }
            nav { display: flex; gap: 6px; overflow-x: auto; padding: 8px; border-top: 1px solid #ddd; }
            nav figure { flex: none; width: 120px; margin: 0; cursor: pointer; font-size: 11px; text-align: center; }
            nav img { width: 100%; background: white; border: 1px solid #ccc; }
            nav figure.current img { outline: 3px solid #0a7cff; }
            </style></head>
            <body>
            <header><strong>\(name.xmlEscaped)</strong> <span id="caption"></span>
            <input id="slider" type="range" min="0" max="\(frames.count - 1)" value="0" aria-label="frame"></header>
            <main><img id="view" alt="the document at the chosen position"></main>
            <nav id="strip">

            """
        for (index, frame) in frames.enumerated() {
            html += """
                <figure data-index="\(index)" data-caption="\(frame.caption.xmlEscaped)">\
                <img src="\(frame.fileName)" loading="lazy" alt="position \(frame.position)">\
                <figcaption>\(frame.position)</figcaption></figure>

                """
        }
        html += """
            </nav>
            <script>
            const figures = [...document.querySelectorAll("#strip figure")];
            const slider = document.getElementById("slider");
            function show(index) {
              index = Math.max(0, Math.min(figures.length - 1, index));
              figures.forEach((figure, i) => figure.classList.toggle("current", i === index));
              document.getElementById("view").src = figures[index].querySelector("img").src;
              document.getElementById("caption").textContent = figures[index].dataset.caption;
              slider.value = index;
              figures[index].scrollIntoView({ block: "nearest", inline: "nearest" });
            }
            figures.forEach((figure, i) => figure.addEventListener("click", () => show(i)));
            slider.addEventListener("input", () => show(Number(slider.value)));
            document.addEventListener("keydown", (event) => {
              if (event.key === "ArrowRight") show(Number(slider.value) + 1);
              if (event.key === "ArrowLeft") show(Number(slider.value) - 1);
            });
            show(0);
            </script>
            </body></html>

            """
        return html
    }
}
