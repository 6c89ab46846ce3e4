import BLEAdvBudget
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEAdvBudgetCapture
@testable import BLECaptureIO
@testable import BLEInspectPipeline
@testable import BLEInspectRender
@testable import BLEInspectSession
@testable import BLEInspectViews

/// `CapturedAdverts.read`: the adverts the project's recordings received, checked byte for byte
/// against captures/README.md, and host commands built here (padding, fragments, malformed
/// lengths, bounds).
@Suite("captured adverts")
struct CapturedAdvertsTests {
    // MARK: Helpers

    final class Messages: @unchecked Sendable {
        var lines: [String] = []
    }

    /// The session of the built-in modules.
    static let session: Session = {
        do {
            return try Toolkit().session()
        } catch {
            fatalError("the registry does not build: \(error)")
        }
    }()

    static func read(
        _ path: String,
        limits: CapturedAdverts.Limits = .init()
    ) -> (adverts: [RawAdvert], status: BLEInspectSession.ExitStatus, errors: [String]) {
        let messages = Messages()
        let scan = CaptureScan(session: session, paths: [path]) { messages.lines.append($0) }
        let result = CapturedAdverts.read(scan, limits: limits)
        return (result.adverts, result.status, messages.lines)
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// C0:DE:C0:DE:00:02 as HCI sends it (little-endian).
    static let peripheral: [UInt8] = [0x02, 0x00, 0xDE, 0xC0, 0xDE, 0xC0]

    /// One HCI packet of a synthetic capture: a command (sent) or an event (received).
    enum Packet {
        case command(UInt16, [UInt8])
        case event(UInt8, [UInt8])

        /// H4 bytes: the packet indicator, then the HCI packet.
        var h4: [UInt8] {
            switch self {
            case .command(let opcode, let params):
                [0x01] + CapturedAdvertsTests.le16(opcode) + [UInt8(truncatingIfNeeded: params.count)] + params
            case .event(let code, let params): [0x04, code, UInt8(truncatingIfNeeded: params.count)] + params
            }
        }

        /// btsnoop flags: bit 0 received, bit 1 command or event.
        var flags: UInt32 {
            if case .command = self { return 2 }
            return 3
        }
    }

    /// A btsnoop file (datalink 1002, H4) holding `packets`, frames numbered from 1.
    static func capture(_ packets: [Packet], in dir: TemporaryDirectory, name: String = "synthetic.btsnoop") -> String {
        var file = CaptureBytes.btsnoopHeader(datalink: 1002)
        for (i, p) in packets.enumerated() {
            file += CaptureBytes.btsnoopRecord(p.h4, flags: p.flags, unixMicros: 1_735_689_600_000_000 + Int64(i) * 100)
        }
        return dir.write(file, to: name)
    }

    /// LE Set Extended Advertising Data (or Scan Response, 0x2038).
    static func extendedData(_ handle: UInt8, operation: UInt8, _ data: [UInt8], opcode: UInt16 = 0x2037) -> Packet {
        .command(opcode, [handle, operation, 0x00, UInt8(truncatingIfNeeded: data.count)] + data)
    }

    /// LE Set Extended Advertising Parameters v1: handle, properties, then the rest (21 bytes).
    static func extendedParameters(_ handle: UInt8, properties: UInt16) -> Packet {
        var p: [UInt8] = [handle] + le16(properties)
        p += [0xA0, 0x00, 0x00, 0xA0, 0x00, 0x00, 0x07, 0x01, 0x00] + [UInt8](repeating: 0, count: 6)
        p += [0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00]
        return .command(0x2036, p)
    }

    /// LE Set Extended Advertising Enable for `handles`.
    static func extendedEnable(_ on: Bool, _ handles: [UInt8]) -> Packet {
        var p: [UInt8] = [on ? 1 : 0, UInt8(handles.count)]
        for h in handles { p += [h, 0x00, 0x00, 0x00] }
        return .command(0x2039, p)
    }

    /// LE Advertising Report with one report.
    static func report(type: UInt8, _ data: [UInt8], address: [UInt8] = peripheral) -> Packet {
        .event(0x3E, [0x02, 0x01, type, 0x01] + address + [UInt8(truncatingIfNeeded: data.count)] + data + [0xCE])
    }

    /// LE Extended Advertising Report with one report.
    static func extendedReport(type: UInt16, sid: UInt8, _ data: [UInt8], address: [UInt8] = peripheral) -> Packet {
        var p: [UInt8] = [0x0D, 0x01] + le16(type) + [0x01] + address
        p += [0x01, 0x02, sid, 0x7F, 0xCE, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        p += [UInt8(truncatingIfNeeded: data.count)] + data
        return .event(0x3E, p)
    }

    /// The frame numbers of the LE Meta events with `subevent` in a recording, read from the bytes.
    static func metaFrames(_ path: String, subevent: UInt8) -> [Int] {
        CaptureFiles.readAll(path).frames.filter {
            $0.kind == .hciEvent && $0.bytes.count > 2 && $0.bytes[0] == 0x3E && $0.bytes[2] == subevent
        }.map(\.number)
    }

    // MARK: The project's recordings

    @Test("adv-scan.btsnoop: one ADV_IND and one SCAN_RSP from the peripheral, each seen 4 times")
    func legacyRecording() throws {
        let path = TestPaths.projectCapture("adv-scan.btsnoop")
        let (adverts, status, errors) = Self.read(path)
        #expect(status == .success)
        #expect(errors.isEmpty)
        // captures/README.md "adv-scan.btsnoop": 4 × ADV_IND with 31 bytes, 4 × SCAN_RSP with 22,
        // alternating, from C0:DE:C0:DE:00:02; the central's host sets no advertising data.
        #expect(adverts.count == 2)
        let reports = Self.metaFrames(path, subevent: 0x02)
        #expect(reports.count == 8)
        let advInd = try #require(adverts.first)
        let scanRsp = try #require(adverts.last)

        // ADV_IND, by hand: Flags 0x06 = 02 01 06; Complete Local Name "bleinspect" (10 bytes) =
        // 0B 09 + 626c65696e7370656374; Complete 16-bit UUIDs 0x180F, 0x180A = 05 03 0F18 0A18;
        // TX Power −4 = 02 0A FC; Manufacturer 0xFFFF + "BLE" = 06 FF FFFF 424C45. 3+12+6+3+7 = 31.
        let advertising = Self.hex("020106 0B09626c65696e7370656374 05030F180A18 020AFC 06FFFFFF424C45")
        #expect(advertising.count == 31)
        #expect(advInd.advertisingData == advertising)
        #expect(advInd.scanResponseData == nil)
        #expect(advInd.kind == .legacy)
        #expect(advInd.connectable == true)
        #expect(advInd.source == nil)
        #expect(
            advInd.label
                == "frame \(reports[0]), advertising report from C0:DE:C0:DE:00:02 (ADV_IND), seen 4 times"
        )

        // SCAN_RSP, by hand: Complete 128-bit UUIDs B1E15EC7-0000-4000-8000-000000000001,
        // little-endian on air = 11 07 01000000000000800040 0000C75EE1B1; Appearance 0x0540 =
        // 03 19 40 05. 18 + 4 = 22.
        let response = Self.hex("1107 0100000000000080 0040 0000 C75EE1B1 03194005")
        #expect(response.count == 22)
        #expect(scanRsp.scanResponseData == response)
        #expect(scanRsp.advertisingData == nil)
        #expect(scanRsp.connectable == nil)
        #expect(
            scanRsp.label
                == "frame \(reports[1]), advertising report from C0:DE:C0:DE:00:02 (SCAN_RSP), seen 4 times"
        )

        // Through the engine: the legacy limits hold, nothing is an error.
        for advert in adverts {
            let result = AdvBudgetEngine.check(raw: advert)
            #expect(!result.findings.contains { $0.severity == .error }, "\(result.findings)")
        }
    }

    @Test("adv-extended.btsnoop: one extended advert of 148 bytes, seen 4 times")
    func extendedRecording() throws {
        let path = TestPaths.projectCapture("adv-extended.btsnoop")
        let (adverts, status, _) = Self.read(path)
        #expect(status == .success)
        #expect(adverts.count == 1)
        let advert = try #require(adverts.first)
        // captures/README.md "adv-extended.btsnoop": event type 0x0001 (connectable, complete),
        // 148 bytes: Flags 0x06; Complete Local Name "bleinspect extended advertiser" (30 bytes);
        // 16-bit UUIDs 0x180F, 0x180A, 0x1809; 128-bit …000000000001 and …00000000C0C0 (the
        // B1E15EC7-0000-4000-8000- base of the other recordings); TX Power −4; Manufacturer 0xFFFF
        // with 64 bytes 0x20…0x5F. The list types (complete, 0x03 and 0x07) are those
        // scripts/record_captures.py writes (EXTENDED_ADV_DATA).
        var expected = Self.hex("020106")
        expected += [0x1F, 0x09]
        expected += Array("bleinspect extended advertiser".utf8)
        expected += Self.hex("0703 0F18 0A18 0918")
        expected += Self.hex("2107 01000000000000800040 0000C75EE1B1 C0C0000000000080 0040 0000C75EE1B1")
        expected += Self.hex("020AFC")
        expected += [0x43, 0xFF, 0xFF, 0xFF]
        expected += (0x20...0x5F).map { UInt8($0) }
        #expect(expected.count == 148)
        #expect(advert.advertisingData == expected)
        #expect(advert.scanResponseData == nil)
        #expect(advert.kind == .extended)
        #expect(advert.connectable == true)
        let first = try #require(Self.metaFrames(path, subevent: 0x0D).first)
        #expect(
            advert.label
                == "frame \(first), extended advertising report from C0:DE:C0:DE:00:02 (connectable; SID 0), "
                + "seen 4 times"
        )
        // 148 bytes: fine for extended advertising, only extended scanners receive it (§1.3).
        let result = AdvBudgetEngine.check(raw: advert)
        #expect(result.findings.map(\.rule) == ["extended.receivers"])
    }

    // MARK: Host commands

    @Test("legacy: padding dropped, advertising data and scan response paired when advertising is enabled")
    func legacyHostSet() throws {
        let dir = TemporaryDirectory()
        // 02 01 06 + Complete Local Name "test": 9 significant bytes, 22 bytes of zero padding.
        let ad = Self.hex("020106 050974657374")
        let scan = Self.hex("03194005")
        let path = Self.capture(
            [
                .command(0x2006, Self.hex("A000 A000 00 00 00 000000000000 07 00")),  // ADV_IND
                .command(0x2008, [UInt8(ad.count)] + ad + [UInt8](repeating: 0, count: 31 - ad.count)),
                .command(0x2009, [UInt8(scan.count)] + scan + [UInt8](repeating: 0, count: 31 - scan.count)),
                .command(0x200A, [0x01]),
                .command(0x200A, [0x00]),
                .command(0x200A, [0x01]),
            ],
            in: dir
        )
        let (adverts, status, _) = Self.read(path)
        #expect(status == .success)
        #expect(adverts.count == 1)
        let advert = try #require(adverts.first)
        #expect(advert.advertisingData == ad)
        #expect(advert.scanResponseData == scan)
        #expect(advert.kind == .legacy)
        #expect(advert.connectable == true)
        #expect(
            advert.label
                == "frame 2, LE Set Advertising Data + frame 3 Scan Response (legacy set), enabled in frame 4, "
                + "on air 2 times"
        )
    }

    @Test("legacy: data changed while enabled is a new advert; data set and never enabled is reported")
    func legacyChangesAndNeverEnabled() throws {
        let dir = TemporaryDirectory()
        let first = Self.hex("020106")
        let second = Self.hex("020106 03FF3412")
        let path = Self.capture(
            [
                .command(0x2006, Self.hex("A000 A000 03 00 00 000000000000 07 00")),  // ADV_NONCONN_IND
                .command(0x2008, [UInt8(first.count)] + first + [UInt8](repeating: 0, count: 28)),
                .command(0x200A, [0x01]),
                .command(0x2008, [UInt8(second.count)] + second + [UInt8](repeating: 0, count: 24)),
                .command(0x200A, [0x00]),
                .command(0x2008, [UInt8(first.count)] + first + [UInt8](repeating: 0, count: 28)),
            ],
            in: dir
        )
        let adverts = Self.read(path).adverts
        #expect(adverts.map(\.advertisingData) == [first, second, first])
        #expect(adverts.allSatisfy { $0.connectable == false })
        #expect(
            adverts.map(\.label) == [
                "frame 2, LE Set Advertising Data (legacy set), enabled in frame 3",
                "frame 4, LE Set Advertising Data (legacy set), set while advertising was enabled",
                "frame 6, LE Set Advertising Data (legacy set), not enabled again after it was set",
            ]
        )
    }

    @Test("extended: first, intermediate and last fragments joined per handle; legacy-bit sets are legacy")
    func extendedFragments() throws {
        let dir = TemporaryDirectory()
        // Manufacturer Specific Data 0xFFFF + 40 bytes 0x00…0x27: Length 43, 44 bytes in all,
        // split 10 + 20 + 14 over three commands.
        let whole: [UInt8] = [43, 0xFF, 0xFF, 0xFF] + (0x00...0x27).map { UInt8($0) }
        let path = Self.capture(
            [
                Self.extendedParameters(1, properties: 0x0001),  // connectable, not legacy
                Self.extendedData(1, operation: 0x01, Array(whole[0..<10])),
                Self.extendedData(2, operation: 0x03, Self.hex("020106")),  // another set, complete
                Self.extendedData(1, operation: 0x00, Array(whole[10..<30])),
                Self.extendedData(1, operation: 0x02, Array(whole[30..<44])),
                Self.extendedData(1, operation: 0x04, []),  // unchanged data: nothing new
                Self.extendedEnable(true, [1]),
                Self.extendedParameters(3, properties: 0x0013),  // legacy ADV_IND
                Self.extendedData(3, operation: 0x03, Self.hex("020106")),
                Self.extendedData(3, operation: 0x03, Self.hex("03194005"), opcode: 0x2038),
                Self.extendedEnable(true, [3]),
            ],
            in: dir
        )
        let adverts = Self.read(path).adverts
        #expect(adverts.count == 3)
        let joined = try #require(adverts.first)
        #expect(joined.advertisingData == whole)
        #expect(joined.kind == .extended)
        #expect(joined.connectable == true)
        #expect(
            joined.label
                == "frames 2–5, LE Set Extended Advertising Data (3 fragments) (set 1), enabled in frame 7"
        )
        let legacy = adverts[1]
        #expect(legacy.kind == .legacy)
        #expect(legacy.advertisingData == Self.hex("020106"))
        #expect(legacy.scanResponseData == Self.hex("03194005"))
        #expect(
            legacy.label
                == "frame 9, LE Set Extended Advertising Data + frame 10 Extended Scan Response (set 3), "
                + "enabled in frame 11"
        )
        // Set 2 was configured and never enabled: reported at the end.
        #expect(adverts[2].advertisingData == Self.hex("020106"))
        #expect(adverts[2].connectable == nil)
        #expect(adverts[2].label == "frame 3, LE Set Extended Advertising Data (set 2), never enabled")
    }

    @Test("extended: more than 1650 bytes of fragments is a truncated advert whose label says so")
    func extendedOverflow() throws {
        let dir = TemporaryDirectory()
        // Seven fragments of 251 bytes = 1757 bytes.
        var packets: [Packet] = [Self.extendedData(0, operation: 0x01, [UInt8](repeating: 0x11, count: 251))]
        for _ in 0..<5 { packets.append(Self.extendedData(0, operation: 0x00, [UInt8](repeating: 0x11, count: 251))) }
        packets.append(Self.extendedData(0, operation: 0x02, [UInt8](repeating: 0x11, count: 251)))
        packets.append(Self.extendedEnable(true, [0]))
        let adverts = Self.read(Self.capture(packets, in: dir)).adverts
        let advert = try #require(adverts.first)
        #expect(adverts.count == 1)
        #expect(advert.advertisingData?.count == 1650)
        #expect(advert.label.contains("7 fragments; truncated: 1757 bytes, the first 1650 kept (1650 at most)"))
        // Parsing bytes that are not AD structures is a finding, never a trap.
        let result = AdvBudgetEngine.check(raw: advert)
        #expect(result.findings.contains { $0.rule == "ad.length.overrun" })
    }

    @Test("a malformed command (Data_Length 40 > 31) is an advert whose label says so; the set stays as it was")
    func malformedLength() throws {
        let dir = TemporaryDirectory()
        let good = Self.hex("020106")
        let path = Self.capture(
            [
                .command(0x2008, [UInt8(good.count)] + good + [UInt8](repeating: 0, count: 28)),
                .command(0x2008, [40] + Self.hex("020106 050974657374") + [UInt8](repeating: 0, count: 22)),
                .command(0x2008, [20, 0x02, 0x01]),  // cut short: 2 of 20 bytes
                .command(0x2037, [0x01, 0x03, 0x00, 30, 0x02, 0x01, 0x06]),  // extended, 3 of 30 bytes
                .command(0x2037, [0x01, 0x09, 0x00, 0x00]),  // reserved Operation
                .command(0x2008, []),  // no parameters at all
                .command(0x200A, [0x01]),
            ],
            in: dir
        )
        let (adverts, status, _) = Self.read(path)
        #expect(status == .success)
        #expect(
            adverts.map(\.label) == [
                "frame 2, LE Set Advertising Data (legacy set): malformed: Data_Length 40 but 31 bytes follow; "
                    + "a controller rejects it",
                "frame 3, LE Set Advertising Data (legacy set): malformed: Data_Length 20 but 2 bytes follow; "
                    + "a controller rejects it",
                "frame 4, LE Set Extended Advertising Data (set 1): malformed: Data_Length 30 but 3 bytes follow; "
                    + "a controller rejects it",
                "frame 5, LE Set Extended Advertising Data (set 1): reserved Operation 0x9; a controller rejects it",
                "frame 6, LE Set Advertising Data (legacy set): no Data_Length; a controller rejects it",
                "frame 1, LE Set Advertising Data (legacy set), enabled in frame 7",
            ]
        )
        #expect(adverts.first?.advertisingData?.count == 31)
        #expect(adverts.last?.advertisingData == good)
        for advert in adverts { _ = AdvBudgetEngine.check(raw: advert) }
    }

    // MARK: Received reports

    @Test("10,000 identical reports are one advert that names the first frame and the count")
    func deduplication() throws {
        let dir = TemporaryDirectory()
        let ad = Self.hex("020106 050974657374")
        let packets = [Packet](repeating: Self.report(type: 0x03, ad), count: 10_000)
        let adverts = Self.read(Self.capture(packets, in: dir)).adverts
        #expect(adverts.count == 1)
        let advert = try #require(adverts.first)
        #expect(advert.advertisingData == ad)
        #expect(advert.connectable == false)
        #expect(
            advert.label == "frame 1, advertising report from C0:DE:C0:DE:00:02 (ADV_NONCONN_IND), seen 10000 times"
        )
    }

    @Test("distinct received adverts are capped; the rest are counted in the last label")
    func receivedCap() throws {
        let dir = TemporaryDirectory()
        let packets = (0..<5).map { i in Self.report(type: 0x00, Self.hex("020106 02FF") + [UInt8(i)]) }
        var limits = CapturedAdverts.Limits()
        limits.receivedAdverts = 3
        let adverts = Self.read(Self.capture(packets, in: dir), limits: limits).adverts
        #expect(adverts.count == 3)
        #expect(adverts.last?.label.hasSuffix("; 2 more distinct received advert(s) not checked (3 at most)") == true)
    }

    @Test("extended reports split by data status are joined per address and SID")
    func extendedReportFragments() throws {
        let dir = TemporaryDirectory()
        let whole: [UInt8] = [0x0B, 0x09] + Array("fragmented".utf8) + [0x02, 0x01, 0x06]
        let other: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        let path = Self.capture(
            [
                Self.extendedReport(type: 0x0021, sid: 5, Array(whole[0..<5])),  // connectable, more to come
                Self.extendedReport(type: 0x0000, sid: 1, Self.hex("020106"), address: other),  // interleaved
                Self.extendedReport(type: 0x0021, sid: 5, Array(whole[5..<10])),
                Self.extendedReport(type: 0x0001, sid: 5, Array(whole[10...])),  // complete
                Self.extendedReport(type: 0x0021, sid: 6, Self.hex("0509")),  // more to come …
                Self.extendedReport(type: 0x0041, sid: 6, Self.hex("6162")),  // … truncated
                Self.extendedReport(type: 0x001B, sid: 7, Self.hex("03194005")),  // legacy SCAN_RSP to ADV_IND
                Self.extendedReport(type: 0x0021, sid: 8, Self.hex("0201")),  // never finished
            ],
            in: dir
        )
        let adverts = Self.read(path).adverts
        #expect(adverts.count == 5)
        #expect(
            adverts[0].label == "frame 2, extended advertising report from 66:55:44:33:22:11 (non-connectable; SID 1)"
        )
        #expect(adverts[1].advertisingData == whole)
        #expect(adverts[1].kind == .extended)
        #expect(
            adverts[1].label
                == "frames 1–4, extended advertising report from C0:DE:C0:DE:00:02 (connectable; SID 5; "
                + "3 reports joined)"
        )
        #expect(adverts[2].advertisingData == Self.hex("0509 6162"))
        #expect(adverts[2].label.contains("truncated by the controller (data status 2)"))
        #expect(adverts[3].kind == .legacy)
        #expect(adverts[3].scanResponseData == Self.hex("03194005"))
        #expect(adverts[3].label.contains("(legacy SCAN_RSP to ADV_IND; SID 7)"))
        #expect(adverts[4].label.contains("incomplete: the capture ends before its last fragment"))
    }

    @Test("random bytes in advertising commands and reports never trap")
    func randomBytes() {
        let dir = TemporaryDirectory()
        var random = SplitMix64(seed: 0xAD_B0D6)
        var packets: [Packet] = []
        let opcodes: [UInt16] = [0x2006, 0x2008, 0x2009, 0x200A, 0x2036, 0x2037, 0x2038, 0x2039, 0x203C, 0x203D]
        for _ in 0..<400 {
            let n = Int(random.next() % 40)
            var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if random.next() % 2 == 0 {
                packets.append(.command(opcodes[Int(random.next() % UInt64(opcodes.count))], bytes))
            } else {
                bytes.insert([0x02, 0x0D, 0x12, 0x29][Int(random.next() % 4)], at: 0)
                packets.append(.event(0x3E, bytes))
            }
        }
        let (adverts, _, _) = Self.read(Self.capture(packets, in: dir))
        for advert in adverts { _ = AdvBudgetEngine.check(raw: advert) }
    }

    @Test("an unreadable input gives its status and no adverts")
    func unreadable() {
        let (adverts, status, errors) = Self.read("/nonexistent/capture.btsnoop")
        #expect(adverts.isEmpty)
        #expect(status == .unreadableInput)
        #expect(!errors.isEmpty)
    }
}
