import BLEInspectCore
import Testing

@testable import BLECaptureIO
@testable import BLEInspectPipeline
@testable import BLEInspectRender
@testable import BLEInspectSession
@testable import BLEInspectViews

/// The pieces of `conns` that the recordings cannot reach: every cell of the pairing table,
/// the sampled median, the credit intervals and the bounded advert table.
@Suite("conns model")
struct ConnsModelTests {
    /// Core Specification Vol 3 Part H 2.3.5.1, Table 2.8 (legacy) and its LE Secure
    /// Connections column, typed in by hand: rows are the initiator, columns the responder, in
    /// the order DisplayOnly, DisplayYesNo, KeyboardOnly, NoInputNoOutput, KeyboardDisplay.
    static let legacy: [[String]] = [
        ["JW", "JW", "PE", "JW", "PE"],
        ["JW", "JW", "PE", "JW", "PE"],
        ["PE", "PE", "PE", "JW", "PE"],
        ["JW", "JW", "JW", "JW", "JW"],
        ["PE", "PE", "PE", "JW", "PE"],
    ]
    static let secure: [[String]] = [
        ["JW", "JW", "PE", "JW", "PE"],
        ["JW", "NC", "PE", "JW", "NC"],
        ["PE", "PE", "PE", "JW", "PE"],
        ["JW", "JW", "JW", "JW", "JW"],
        ["PE", "NC", "PE", "JW", "NC"],
    ]
    static let names = ["JW": "Just Works", "PE": "Passkey Entry", "NC": "Numeric Comparison"]

    @Test("the IO capability table, both pairing kinds")
    func ioTable() {
        for i in 0..<5 {
            for r in 0..<5 {
                for (sc, table) in [(false, Self.legacy), (true, Self.secure)] {
                    let got = ConnsPairing.ioMethod(initiator: UInt8(i), responder: UInt8(r), secureConnections: sc)
                    #expect(got == Self.names[table[i][r]], "initiator \(i) responder \(r) sc \(sc)")
                }
            }
        }
        #expect(ConnsPairing.ioMethod(initiator: 5, responder: 0, secureConnections: true) == nil)
    }

    @Test("OOB and MITM decide before the IO table")
    func oobAndMITM() {
        var p = ConnsPairing(requested: ConnsMoment(frame: 1, time: 0))
        p.initiatorIO = 1
        p.responderIO = 1
        p.responded = true
        #expect(p.method == "Just Works")  // no MITM flag on either side
        p.initiatorMITM = true
        #expect(p.method == "Just Works")  // legacy DisplayYesNo both ways
        p.initiatorSC = true
        p.responderSC = true
        #expect(p.method == "Numeric Comparison")
        p.responderOOB = true
        #expect(p.method == "Out of Band")  // LE Secure Connections: either side's OOB flag
        p.initiatorSC = false
        // Legacy needs both sides' OOB flags; DisplayYesNo both ways is Just Works there.
        #expect(p.method == "Just Works")
    }

    @Test("the median is exact up to the reservoir, then sampled; min and max stay exact")
    func latency() {
        var l = LatencySamples()
        for v: Int64 in [5, 1, 4, 2] { l.add(v) }
        #expect(l.median == 3 && l.minimum == 1 && l.maximum == 5 && l.exact)
        l.add(100)
        #expect(l.median == 4)
        var big = LatencySamples()
        for v in 0..<Int64(100_000) { big.add(v % 1000) }
        #expect(!big.exact && big.count == 100_000 && big.samples.count == LatencySamples.capacity)
        #expect(big.minimum == 0 && big.maximum == 999)
        // A uniform sample of 0…999 repeated: its median is near 500.
        #expect((400...600).contains(big.median ?? -1))
    }

    static func moment(_ frame: Int, _ us: Int64) -> ConnsMoment { ConnsMoment(frame: frame, time: us) }

    @Test("a stall runs from the K-frame that takes the last credit to the credit packet")
    func stall() {
        var side = ConnsChannelSide()
        side.balance(2, at: Self.moment(1, 0), unfinishedSDU: nil, granted: nil)
        side.balance(1, at: Self.moment(2, 10), unfinishedSDU: 1, granted: nil)
        side.balance(0, at: Self.moment(3, 20), unfinishedSDU: 1, granted: nil)
        side.balance(0, at: Self.moment(4, 500), unfinishedSDU: nil, granted: nil)  // other traffic
        side.balance(3, at: Self.moment(5, 1020), unfinishedSDU: nil, granted: 3)
        #expect(side.stalls.items.count == 1)
        let s = side.stalls.items[0]
        #expect(s.start.frame == 3 && s.end?.frame == 5 && s.sdu == 1 && s.creditsGranted == 3)
        #expect(side.stalledMicroseconds == 1000 && side.zeroCreditMicroseconds == 1000)
        // The last credit taken by the K-frame that ends an SDU: at zero, but not a stall.
        side.balance(0, at: Self.moment(6, 2000), unfinishedSDU: nil, granted: nil)
        side.balance(1, at: Self.moment(7, 2500), unfinishedSDU: nil, granted: 1)
        #expect(side.stalls.items.count == 1 && side.zeroCreditIntervals == 2)
        #expect(side.zeroCreditMicroseconds == 1500 && side.stalledMicroseconds == 1000)
        // A stall still open when the connection ends is closed there, with no credits given.
        side.balance(0, at: Self.moment(8, 3000), unfinishedSDU: 2, granted: nil)
        side.close(at: Self.moment(9, 3100), granted: nil)
        #expect(side.stalls.items.last?.creditsGranted == nil && side.stalledMicroseconds == 1100)
    }

    @Test("the advert table keeps first sightings across one generation, and stays bounded")
    func sightings() {
        var s = AdvertisingSightings()
        let a = BDAddr(rawValue: 0x01_0000_0000)
        s.saw(a, at: Self.moment(1, 100))
        s.saw(a, at: Self.moment(2, 200))
        for k in 0..<AdvertisingSightings.generation {
            s.saw(BDAddr(rawValue: 0x02_0000_0000 | UInt64(k)), at: Self.moment(3 + k, 300))
        }
        // a was moved to the old generation when the young one filled, and is still known.
        #expect(s.take([a])?.frame == 1)
        #expect(s.take([a]) == nil)  // taken once
        for k in 0..<(2 * AdvertisingSightings.generation) {
            s.saw(BDAddr(rawValue: 0x03_0000_0000 | UInt64(k)), at: Self.moment(k, 0))
        }
        // The first sightings of the 2-addresses are forgotten after two generations.
        #expect(s.take([BDAddr(rawValue: 0x02_0000_0000)]) == nil)
    }

    @Test("capped lists count what they drop")
    func capped() {
        var l = CappedList<Int>(limit: 3)
        for k in 0..<10 { l.append(k) }
        #expect(l.items == [0, 1, 2] && l.dropped == 7)
    }
}
