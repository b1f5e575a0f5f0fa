import EaselModel
import EaselProtocol
import EaselWeb

extension FuzzTarget {
    /// The page's calls into the WebAssembly module, made natively: the
    /// input is a little program of calls (frames from the server, gestures,
    /// commands with any numbers and text, renders, exports, a saved session
    /// to restore), so the fuzzer reaches what a hostile server or a corrupt
    /// saved session could make the module do.
    static let bridge = FuzzTarget(
        name: "bridge",
        property: """
            any sequence of the page's calls into the module, with any frames, numbers and text, \
            returns without trapping, and a closed session's handle is refused afterwards (-2)
            """,
        check: { input in
            var program = BridgeProgram(input)
            program.run()
        },
        seeds: { sources in
            let frames = try Vectors.messages(in: sources.vectors, ending: ".hex")
            let welcome = frames.first { $0.0.contains("welcome") }?.1 ?? []
            return frames.map { name, frame in
                (name, BridgeProgram.receiving(welcome) + BridgeProgram.receiving(frame) + [Call.render.rawValue])
            }
        })
}

/// The calls a program byte selects; the arguments follow it in the input.
enum Call: UInt8, CaseIterable {
    case receive, command, gesture, pointer, tick, render, read, decode, reconnect, caret, image, restore
}

struct BridgeProgram {
    private var input: [UInt8]
    private var index = 0
    private var now = 1_000.0

    init(_ input: [UInt8]) {
        self.input = input
    }

    /// The program that receives one frame.
    static func receiving(_ frame: [UInt8]) -> [UInt8] {
        let count = min(frame.count, Int(UInt16.max))
        return [Call.receive.rawValue, UInt8(count & 0xFF), UInt8(count >> 8)] + frame.prefix(count)
    }

    mutating func run() {
        let hello = Self.hello
        var handle = with(hello) { easelSessionOpen($0, $1, now) }
        precondition(handle > 0, "the fuzzer's own hello was refused: \(handle)")
        easelSessionConnectionOpened(handle, now)
        while let selector = byte() {
            guard let call = Call(rawValue: selector % UInt8(Call.allCases.count)) else { break }
            switch call {
            case .receive:
                _ = with(chunk()) { easelSessionReceive(handle, $0, $1, now) }
            case .command:
                let kind = Int32(byte() ?? 0)
                let (integer, a, b, c, d) = (int32(), float(), float(), float(), float())
                let (text, extra) = (chunk(), chunk())
                _ = with(text) { textPointer, textCount in
                    with(extra) { extraPointer, extraCount in
                        easelSessionCommand(
                            handle, kind, integer, a, b, c, d, textPointer, textCount, extraPointer, extraCount, now)
                    }
                }
            case .gesture:
                _ = easelSessionGesture(handle, Int32(byte() ?? 0), float(), float(), float(), float(), now)
            case .pointer:
                easelSessionPointer(handle, float(), float(), Int32(byte() ?? 0) & 1, now)
            case .tick:
                now += Double(byte() ?? 0) * 10
                easelSessionTick(handle, now)
                _ = easelSessionTakeOutputs(handle)
            case .render:
                easelSessionCanvasSize(handle, float(), float())
                _ = easelSessionRender(handle)
                _ = easelSessionWaiting(handle)
                _ = easelSessionPreview(handle)
            case .read:
                let flags = byte() ?? 0
                _ = easelSessionExportSVG(handle, Int32(flags & 1), Int32(flags >> 1 & 1))
                _ = easelSessionCopy(handle)
                _ = easelSessionSelectionFrame(handle)
                _ = easelSessionSelectedText(handle)
                _ = easelSessionPeers(handle)
                easelSessionSaved(handle)
                easelSessionSelection(handle)
                easelSessionViewport(handle)
                _ = easelSessionStateHash(handle)
                _ = easelSessionFlags(handle)
            case .decode:
                let json = Int32(byte() ?? 0) & 1
                _ = with(chunk()) { easelDecode($0, $1, json) }
            case .reconnect:
                easelSessionConnectionClosed(handle, now)
                easelSessionConnectionOpened(handle, now)
            case .caret:
                _ = easelSessionPlaceCaret(handle, int32(), int32(), now)
                _ = easelSessionPlacingSpot(handle, float(), float())
            case .image:
                let (hex, x, y, width, height) = (chunk(), float(), float(), float(), float())
                _ = with(hex) { easelSessionPlaceImage(handle, $0, $1, x, y, width, height, now) }
                _ = with(hex) { easelSessionBlobStored(handle, $0, $1) }
            case .restore:
                let saved = chunk()
                let restored = with(hello) { helloPointer, helloCount in
                    with(saved) { easelSessionRestore(helloPointer, helloCount, $0, $1, now) }
                }
                guard restored > 0 else { break }
                easelSessionClose(handle)
                handle = restored
                easelSessionConnectionOpened(handle, now)
            }
        }
        easelSessionClose(handle)
        let stillAnswered = with([]) { easelSessionReceive(handle, $0, $1, now) } != -2
        precondition(!stillAnswered, "a closed session still answered")
    }

    /// The hello the page opens a session with.
    private static let hello: [UInt8] = {
        guard let document = try? DocumentName("fuzz/bridge") else { return [] }
        return Message.hello(
            Hello(document: document, replica: ReplicaID(rawValue: 0xB1), user: UserInfo(name: "fuzz", initials: "F", color: .black))
        ).jsonEncoded()
    }()

    // MARK: Reading the program

    private mutating func byte() -> UInt8? {
        guard index < input.count else { return nil }
        defer { index += 1 }
        return input[index]
    }

    private mutating func int32() -> Int32 {
        Int32(bitPattern: (0..<4).reduce(UInt32(0)) { word, shift in word | UInt32(byte() ?? 0) << (8 * shift) })
    }

    /// Any float, NaN and the infinities included: the page passes numbers
    /// it computed, and a bug there must not become a trap here.
    private mutating func float() -> Float {
        Float(bitPattern: UInt32(bitPattern: int32()))
    }

    /// A length of two bytes, then that many bytes (fewer at the end).
    private mutating func chunk() -> [UInt8] {
        let count = Int(byte() ?? 0) | Int(byte() ?? 0) << 8
        let end = min(index + count, input.count)
        defer { index = end }
        return Array(input[index..<end])
    }

    /// The bytes as the page passes them: a pointer into memory it
    /// allocated (never nil, even for none) and a count.
    private func with<Result>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, Int32) -> Result) -> Result {
        let padded = bytes + [0]
        return padded.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a buffer of one byte has an address") }
            return body(base, Int32(bytes.count))
        }
    }
}
