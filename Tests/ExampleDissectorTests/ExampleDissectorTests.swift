import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import ExampleDissector
import Foundation
import Testing

/// The example package's dissector module (examples/custom-dissector), built here from the same
/// sources: on the project's LE CoC recordings, its fields must hold what the recording script
/// sent (`le-coc.sdus.json`, `le-coc-stall.stalls.json`), and damaged SDUs must give warnings or
/// malformed notes, never a trap.
@Suite("example dissector module")
struct ExampleDissectorTests {
    static let registry: DissectorRegistry = {
        do {
            return try RegistryBuilder.build(modules: Dissect.modules + [ThermoProbeModule.self])
        } catch {
            fatalError("the registry with the example module does not build: \(error)")
        }
    }()

    /// One SDU as the script sent it, with its number among its sender's SDUs (the script's
    /// `enumerate(…, start=1)` per direction).
    struct SentSDU {
        var direction: String
        var bytes: [UInt8]
        var number: Int
        var sender: UInt64 { direction == "central->peripheral" ? 1 : 2 }
        /// Where the header ends: the script writes `C>P SDU n len nnn |`, so the first `|`.
        var headerEnd: Int { (bytes.firstIndex(of: UInt8(ascii: "|")) ?? -1) + 1 }
    }

    /// The SDUs of a JSON list of `{"direction", "hex"}` (at `key` of an object, or the whole file).
    static func sent(_ file: String, key: String? = nil) throws -> [SentSDU] {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture(file)))
        let json = try JSONSerialization.jsonObject(with: data)
        let entries: Any? = if let key { (json as? [String: Any])?[key] } else { json }
        let list = entries as? [[String: String]] ?? []
        var counts: [String: Int] = [:]
        return list.map { entry in
            let direction = entry["direction"] ?? ""
            counts[direction, default: 0] += 1
            return SentSDU(direction: direction, bytes: Hex.bytes(entry["hex"] ?? ""), number: counts[direction] ?? 0)
        }
    }

    /// The frames of `capture` that carry a demo-stream SDU, dissected with the module.
    static func decoded(_ capture: String) -> [FrameSnapshot] {
        Dissect.frames(CaptureFiles.readAll(TestPaths.projectCapture(capture)).frames, registry: registry)
            .filter { $0.has("cocdemo") }
    }

    /// Checks every decoded SDU against the one the script sent in the same place.
    static func expectSame(_ decoded: [FrameSnapshot], _ sent: [SentSDU]) {
        #expect(decoded.count == sent.count)
        var previousFrame: [String: Int] = [:]
        for (frame, sdu) in zip(decoded, sent) {
            let body = Array(sdu.bytes[sdu.headerEnd...])
            #expect(frame.uints("cocdemo.sender") == [sdu.sender])
            #expect(frame.uints("cocdemo.sdu_number") == [UInt64(sdu.number)])
            #expect(frame.uints("cocdemo.length") == [UInt64(sdu.bytes.count)])
            #expect(frame.strings("cocdemo.header") == [String(decoding: sdu.bytes[..<sdu.headerEnd], as: UTF8.self)])
            #expect(frame.bytes("cocdemo.data") == [body])
            #expect(frame.uints("cocdemo.first_value") == body.prefix(1).map(UInt64.init))
            #expect(frame.bools("cocdemo.counts_up") == [true])
            #expect(frame.uints("cocdemo.previous_in_frame") == previousFrame[sdu.direction].map { [UInt64($0)] } ?? [])
            #expect(frame.warnings.isEmpty, "frame \(frame.frame.number): \(frame.warnings)")
            let direction = sdu.direction == "central->peripheral" ? "C>P" : "P>C"
            #expect(frame.info.contains("\(direction) SDU \(sdu.number), \(body.count) bytes counting from 0x"))
            previousFrame[sdu.direction] = frame.frame.number
        }
    }

    @Test("le-coc: the six SDUs the script sent, both ways")
    func leCoc() throws {
        let sent = try Self.sent("le-coc.sdus.json")
        #expect(sent.count == 6)
        Self.expectSame(Self.decoded("le-coc.btsnoop"), sent)
    }

    @Test("le-coc-stall: the five SDUs, one of them in a single K-frame")
    func leCocStall() throws {
        let sent = try Self.sent("le-coc-stall.stalls.json", key: "sdus")
        #expect(sent.count == 5)
        Self.expectSame(Self.decoded("le-coc-stall.btsnoop"), sent)
    }

    @Test("the module binds PSM 0x0085, which no built-in module binds, and names its service")
    func registration() throws {
        let key = DissectorKey(ThermoProbeModule.psm)
        #expect(Dissect.registry().binding(StandardTables.l2capPSM, key) == nil)
        #expect(Self.registry.binding(StandardTables.l2capPSM, key)?.owner == "cocdemo")
        #expect(Self.registry.name(of: ThermoProbeModule.service) == "CoC Demo Service")
        #expect(ThermoProbeModule.service == BluetoothUUID("B1E15EC7-0000-4000-8000-00000000C0C0"))
        #expect(Self.registry.field(named: "cocdemo.sdu_number") != nil)
    }

    /// Feeds `bytes` as an SDU on PSM 0x0085 of connection 1, with a fresh capture state unless
    /// `feeder` is given.
    static func feed(_ bytes: [UInt8], _ feeder: PDUFeeder? = nil, direction: Direction = .hostToController)
        -> FrameSnapshot
    {
        (feeder ?? PDUFeeder(registry: registry)).channel(
            bytes,
            direction,
            connection: 1,
            cid: 0x0040,
            psm: ThermoProbeModule.psm
        )
    }

    @Test("every prefix of an SDU is truncated in its header, a warning after it")
    func prefixes() throws {
        let sdu = try #require(try Self.sent("le-coc.sdus.json").first)
        let count = sdu.bytes.count
        let body = Dictionary(uniqueKeysWithValues: (sdu.headerEnd..<count).map { ($0, FrameMark.warning) })
        let frames = expectEveryPrefix(of: sdu.bytes, "SDU 1", marks: body) { Self.feed($0) }
        for n in sdu.headerEnd..<count {
            #expect(frames[n]?.warnings == ["The header gives \(count) bytes, the SDU has \(n)"])
        }
    }

    @Test("headers not of the stream's form are malformed")
    func badHeaders() {
        for header in [
            "X>Y SDU 1 len 020 |", "C>P SDU one len 020 |", "C>P SDU 99999999999 len 99 |", "C>P SDU 1 len 70000 |",
            "C>P PDU 1 len 020 |", "C>P SDU 1  len 020 |",
        ] {
            let bytes = Array(header.utf8) + [0x50]
            #expect(Self.feed(bytes).isMalformed, "\(header)")
        }
        #expect(Self.feed(Array(repeating: UInt8(ascii: "A"), count: 64)).isMalformed)
    }

    @Test("a wrong start, a broken count and missing SDUs are warnings")
    func streamRules() throws {
        let sdu = try #require(try Self.sent("le-coc.sdus.json").first)
        var broken = sdu.bytes
        broken[sdu.headerEnd + 5] ^= 0xFF
        let frame = Self.feed(broken)
        #expect(frame.bools("cocdemo.counts_up") == [false])
        #expect(frame.warnings.count == 1)
        #expect(frame.warnings.first?.hasPrefix("The count breaks:") == true)

        var shifted = sdu.bytes
        for i in sdu.headerEnd..<shifted.count { shifted[i] &+= 1 }
        #expect(Self.feed(shifted).warnings == ["SDU 1 C>P counts from 0x51, not 0x50"])

        let feeder = PDUFeeder(registry: Self.registry)
        let sdus = try Self.sent("le-coc.sdus.json").filter { $0.sender == 1 }
        #expect(Self.feed(sdus[0].bytes, feeder).warnings.isEmpty)
        let third = Self.feed(sdus[2].bytes, feeder)
        #expect(third.warnings == ["SDU 3 C>P follows SDU 1 (frame 1): 1 SDU(s) missing"])
        #expect(third.uints("cocdemo.previous_in_frame") == [1])
        #expect(
            Self.feed(sdus[2].bytes, feeder).warnings == ["SDU 3 C>P follows SDU 3 (frame 2): the same number again"]
        )
        #expect(
            Self.feed(sdus[1].bytes, feeder).warnings == ["SDU 2 C>P follows SDU 3 (frame 3): the number goes back"]
        )
        // The peripheral's SDUs are a stream of their own.
        #expect(Self.feed(Array("P>C SDU 1 len 021 |".utf8) + [0xB0, 0xB1], feeder).warnings.isEmpty)
        // A closed connection's streams are forgotten: SDU 1 again is a first SDU.
        feeder.close(1)
        let again = Self.feed(sdus[0].bytes, feeder)
        #expect(again.warnings.isEmpty)
        #expect(again.uints("cocdemo.previous_in_frame") == [])
    }
}
