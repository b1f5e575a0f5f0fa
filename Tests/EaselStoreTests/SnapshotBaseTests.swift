import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@testable import EaselStore

/// A snapshot built on the state the previous one left (`SnapshotBase`)
/// is the snapshot a whole load makes, and a base the log no longer
/// continues is never built on.
@Suite("Snapshots built on the previous one's state")
struct SnapshotBaseTests {
    let epoch = Epoch(rawValue: 0x5BA5E)

    private func same(_ built: EncodedSnapshot, _ loaded: EncodedSnapshot) -> Bool {
        built.position == loaded.position && built.state == loaded.state && built.highWater == loaded.highWater
    }

    @Test func aSnapshotBuiltOnThePreviousOnesStateIsTheOneAWholeLoadMakes() throws {
        for seed in propertySeeds(count: 20, label: "snapshot bases") {
            let file = TemporaryDatabase()
            let store = try OpStore(path: file.path)
            try store.createDocument("board", epoch: epoch, at: now)
            let history = StoreHistory(seed: seed, length: 200).positioned()
            var random = SeededRandom(seed: seed)
            var cuts = (0..<3).map { _ in Int.random(in: 1...history.count, using: &random) }.sorted()
            cuts.append(history.count)
            var base: SnapshotBase?
            var appended = 0
            for cut in cuts where cut > appended {
                try store.append(Array(history[appended..<cut]), to: "board")
                appended = cut
                let built = try store.encodedSnapshot(of: "board", continuing: &base)
                #expect(same(built, try store.encodedSnapshot(of: "board")), "EASEL_SEED=\(seed), at \(cut)")
                // Stored, as the snapshot thread's are: the next is built on
                // this one's state, not on the stored one's.
                try store.writeSnapshot(built, of: "board", at: now)
            }
        }
    }

    @Test func aDocumentMadeAnewUnderTheSameNameIsLoadedWholeNotBuiltOnTheOldOnesState() throws {
        let file = TemporaryDatabase()
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: epoch, at: now)
        try store.append(StoreHistory(seed: 1, length: 60).positioned(), to: "board")
        var base: SnapshotBase?
        _ = try store.encodedSnapshot(of: "board", continuing: &base)

        // Positions 1-120 again, so the log seems to continue the base's 60.
        try store.deleteDocument("board")
        try store.createDocument("board", epoch: Epoch(rawValue: 0xA7E5), at: now + 1)
        try store.append(StoreHistory(seed: 2, length: 120).positioned(), to: "board")
        let built = try store.encodedSnapshot(of: "board", continuing: &base)
        #expect(same(built, try store.encodedSnapshot(of: "board")))
    }

    @Test func opsCompactedAwayAfterTheBaseMakeAWholeLoadNotAGap() throws {
        let file = TemporaryDatabase()
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: epoch, at: now)
        let history = StoreHistory(seed: 3, length: 150).positioned()
        try store.append(Array(history[..<40]), to: "board")
        var base: SnapshotBase?
        _ = try store.encodedSnapshot(of: "board", continuing: &base)

        // Another connection (`easel db compact`) snapshots at 100 and drops what that covers.
        try store.append(Array(history[40..<100]), to: "board")
        try store.snapshot("board", at: now)
        #expect(try store.compact("board") == 100)
        try store.append(Array(history[100...]), to: "board")
        let built = try store.encodedSnapshot(of: "board", continuing: &base)
        #expect(built.position == 150)
        #expect(same(built, try store.encodedSnapshot(of: "board")))
    }
}
