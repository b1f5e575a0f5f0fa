import Foundation
import Testing

@testable import easel

/// `easel bench all`'s rows: the ratio says how many times better Easel
/// does, whichever way its figure is better.
@Suite struct BenchRowTests {
    @Test func aRateRatioIsEaselOverThePeerAndATimeRatioThePeerOverEasel() throws {
        let rate = BenchRow(
            workload: "w", metric: "m", unit: "M/s", easel: [30, 10, 20], peer: "p", peerValues: [2, 1, 3],
            higherIsBetter: true)
        #expect(rate.ratio == 10)
        let time = BenchRow(
            workload: "w", metric: "m", unit: "ms", easel: [2, 4, 3], peer: "p", peerValues: [9, 12, 6],
            higherIsBetter: false)
        #expect(time.ratio == 3)
        #expect(BenchRow(workload: "w", metric: "m", unit: "ms", easel: [1], higherIsBetter: false).ratio == nil)
    }

    @Test func theJSONCarriesEveryRunWithTheMedianRangeAndRatio() throws {
        let row = BenchRow(
            workload: "S1", metric: "fan-out", unit: "M/s", easel: [3, 1, 2], peer: "relay", peerValues: [4],
            higherIsBetter: true)
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(row)) as? [String: Any])
        #expect(object["easel"] as? [Double] == [3, 1, 2])
        #expect(object["easelMedian"] as? Double == 2 && object["easelMin"] as? Double == 1)
        #expect(object["easelMax"] as? Double == 3 && object["peerMedian"] as? Double == 4)
        #expect(object["ratio"] as? Double == 0.5 && object["peer"] as? String == "relay")
    }

    @Test func theTextRowsSetEaselsMergeOfTheTraceBesideEachPeersImportInMilliseconds() {
        let timings: [String: [Double]] = [
            "decode + merge, outbox": [0.002, 0.004], "decode + merge in the document": [0.03],
            "loro merge": [0.008, 0.012], "yrs merge": [0.1], "replay": [0.05], "replay in the module (Node)": [0.1],
        ]
        let rows = BenchText.rows(timings, peers: ["loro", "yrs"])
        #expect(rows.map(\.peer) == ["Loro", "Yrs", "Loro", "Yrs", "native Swift"])
        #expect(rows[0].easel == [2, 4] && rows[0].peerValues == [8, 12])
        #expect(rows[0].ratio == 3, "Loro's median over Easel's: lower is better")
        #expect(rows[4].ratio == 0.5, "the module takes twice native's time")
        #expect(BenchText.rows(timings, peers: []).count == 1)
    }

    @Test func aWorkloadThatFailedIsARowSayingWhyInTheTable() {
        let table = BenchTable.text([.missing("module merge", "", note: "failed: no node")])
        #expect(table.contains("module merge") && table.contains("failed: no node"))
    }

    @Test func theLatencyPlotDrawsOneCurveASeriesUpToTheSlowestValue() {
        let svg = LatencyPlot.svg(
            [("receipt", (1...1000).map { Double($0) / 100 }), ("ack", [1, 2, 3]), ("none", [])], title: "t")
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(svg.contains(">10.0<"), "the axis tops out at the slowest value")
    }
}
