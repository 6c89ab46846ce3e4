import BLECaptureTestSupport
import BLEDissectorAdvertising
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// The walk over a block: order, overruns, padding, and robustness.
@Suite struct ADBlockTests {
    /// The advertising data of captures/adv-scan.btsnoop (ADV_IND, 31 octets).
    static let advScanADV = "020106 0B09626C65696E7370656374 05030F180A18 020AFC 06FFFFFF424C45"
    /// Its scan response (22 octets).
    static let advScanRSP = "1107010000000000008000400000C75EE1B1 03194005"

    @Test func advScanAdvertisingData() {
        let s = AD.block(Self.advScanADV)
        #expect(s.frame.bytes.count == 31)
        #expect(s.uints("btcommon.eir_ad.entry.type") == [0x01, 0x09, 0x03, 0x0A, 0xFF])
        #expect(s.uints("btcommon.eir_ad.entry.length") == [2, 11, 5, 2, 6])
        #expect(s.strings("adv.name") == ["bleinspect"])
        #expect(s.uints("btcommon.eir_ad.entry.uuid_16") == [0x180F, 0x180A])
        #expect(s.ints("btcommon.eir_ad.entry.power_level") == [-4])
        #expect(s.uints("btcommon.eir_ad.entry.company_id") == [0xFFFF])
        #expect(s.hex("btcommon.eir_ad.entry.data") == ["424c45"])
        #expect(!s.isMalformed)
        #expect(s.info == "\"bleinspect\"")
        // One layer node over the whole block, one entry per structure, each over its bytes.
        let layer = AD.id("btcommon.eir_ad.advertising_data")
        let layers = s.nodes.filter { $0.field == layer }
        #expect(layers.count == 1)
        #expect(layers.first?.range == 0..<31)
        let entry = AD.id("btcommon.eir_ad.entry")
        #expect(s.nodes.filter { $0.field == entry }.map(\.range) == [0..<3, 3..<15, 15..<21, 21..<24, 24..<31])
    }

    @Test func advScanScanResponse() {
        let s = AD.block(Self.advScanRSP)
        #expect(s.uuids("btcommon.eir_ad.entry.custom_uuid_128") == [uuid("B1E15EC7-0000-4000-8000-000000000001")])
        #expect(s.uuids("adv.uuid") == [uuid("B1E15EC7-0000-4000-8000-000000000001")])
        #expect(s.uints("btcommon.eir_ad.entry.appearance") == [0x0540])
        #expect(s.info.isEmpty)
    }

    @Test func emptyBlockAddsNothing() {
        #expect(AD.block("").nodes.isEmpty)
    }

    @Test func overrunKeepsEarlierStructures() {
        // Flags, then a name that claims 5 octets with 3 left.
        let s = AD.block("020106 05 09 4142")
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_general_discoverable_mode") == [true])
        #expect(s.uints("btcommon.eir_ad.entry.length") == [2, 5])
        #expect(s.uints("btcommon.eir_ad.entry.type") == [1, 9])
        #expect(s.hex("btcommon.eir_ad.entry.data") == ["4142"])
        #expect(!s.has("btcommon.eir_ad.entry.device_name"))
        #expect(s.isMalformed)
        let malformed = s.nodes.first { $0.field == AD.id("_ws.malformed") }
        #expect(malformed?.range == 3..<7)
        // The malformed note is inside the AD layer.
        let layerDepth = s.nodes.first { $0.field == AD.id("btcommon.eir_ad.advertising_data") }?.depth
        #expect(malformed?.depth == layerDepth.map { $0 + 1 })
        // A lone length octet.
        let lone = AD.block("020106 1F")
        #expect(lone.isMalformed)
        #expect(lone.uints("btcommon.eir_ad.entry.length") == [2, 31])
        #expect(lone.uints("btcommon.eir_ad.entry.type") == [1])
    }

    @Test func zeroLengthEndsTheSignificantPart() {
        let s = AD.block("020106 00000000 0000")
        #expect(s.uints("btcommon.eir_ad.entry.type") == [1])
        #expect(s.nodes.first { $0.field == AD.id("btcommon.eir_ad.unused") }?.range == 3..<9)
        #expect(!s.isMalformed)
        #expect(s.expertMessages.isEmpty)
        // Legacy data padded to 31 octets.
        let padded = AD.block("020106 0303AAFE" + String(repeating: "00", count: 24))
        #expect(padded.uints("btcommon.eir_ad.entry.uuid_16") == [0xFEAA])
        #expect(padded.hex("btcommon.eir_ad.unused") == [String(repeating: "00", count: 24)])
        #expect(!padded.isMalformed)
        // Structures after a zero length are not decoded; non-zero padding is noted.
        let odd = AD.block("020106 00 020106")
        #expect(odd.uints("btcommon.eir_ad.entry.type") == [1])
        #expect(!odd.isMalformed)
        #expect(odd.expertMessages.count == 1)
        // A block that is only padding.
        let only = AD.block("000000")
        #expect(only.hex("btcommon.eir_ad.unused") == ["000000"])
        #expect(!only.has("btcommon.eir_ad.entry"))
    }

    @Test func malformedStructureDoesNotStopTheWalk() {
        let s = AD.block("02 19 40  0B09626C65696E7370656374  020AFC")
        #expect(s.isMalformed)
        #expect(s.strings("adv.name") == ["bleinspect"])
        #expect(s.ints("btcommon.eir_ad.entry.power_level") == [-4])
    }

    /// Every prefix of every vector decodes cleanly when it ends on a structure boundary, and is
    /// marked otherwise; nothing traps. A structure cut short is marked malformed ("AD structure
    /// length N runs past the end of the data"), not truncated.
    @Test(arguments: ADVectors.all)
    func everyPrefix(_ vector: String) {
        let bytes = Hex.bytes(vector)
        let boundaries = Set(AD.boundaries(bytes))
        let inside = (0..<bytes.count).filter { !boundaries.contains($0) }.map { ($0, FrameMark.malformed) }
        expectEveryPrefix(of: bytes, vector, clean: boundaries, marks: Dictionary(uniqueKeysWithValues: inside)) {
            AD.block($0)
        }
    }

    /// Every prefix of the data of every structure, with its length octet fixed up, must decode or
    /// be marked malformed inside its own entry, without trapping.
    @Test(arguments: ADVectors.all)
    func everyDataPrefix(_ vector: String) {
        let bytes = Hex.bytes(vector)
        let starts = AD.boundaries(bytes).dropLast()
        for start in starts where start < bytes.count && bytes[start] > 0 {
            let length = Int(bytes[start])
            guard start + 1 + length <= bytes.count else { continue }
            let type = bytes[start + 1]
            let data = bytes[(start + 2)..<(start + 1 + length)]
            for k in 0...data.count {
                let s = AD.block([UInt8(k + 1), type] + Array(data.prefix(k)))
                #expect(s.uints("btcommon.eir_ad.entry.type") == [UInt64(type)])
                #expect(s.uints("btcommon.eir_ad.entry.length") == [UInt64(k + 1)])
            }
        }
    }

    /// Arbitrary bytes never trap, and every node stays inside the block.
    @Test func arbitraryBytes() {
        var rng = SplitMix64(seed: 0xB1E1_5EC7)
        for _ in 0..<3000 {
            let count = Int(rng.next() % 64)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Bias towards plausible structures: small lengths and known types.
            if count > 2, rng.next() % 2 == 0 {
                bytes[0] = UInt8(rng.next() % UInt64(count))
                bytes[1] = ADVectors.types[Int(rng.next() % UInt64(ADVectors.types.count))]
            }
            let s = AD.block(bytes)
            for node in s.nodes where node.source == 0 {
                #expect(node.range.lowerBound >= 0 && node.range.upperBound <= bytes.count)
            }
        }
    }
}

/// The vectors of these tests, for the sweeps.
enum ADVectors {
    static let types: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x14, 0x15,
        0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
        0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x32, 0x34, 0x3D, 0xFF,
    ]

    static let all: [String] = [
        ADBlockTests.advScanADV,
        ADBlockTests.advScanRSP,
        "020106 05030F180A18 0904785634120D180000 1107FB349B5F80000080001000000D180000",
        "0514 0D180F18 051F0D180000 111500112233445566778899AABBCCDDEEFF",
        "040D0C025A 110E00112233445566778899AABBCCDDEEFF 110F00112233445566778899AABBCCDDEEFF",
        "0910 0200 5E04 1234 0100 11 10 00112233445566778899AABBCCDDEEFF 02110F 0512 0600 8000",
        "04160F1857 0720 0D180000 0102 1321 00112233445566778899AABBCCDDEEFF 0102",
        "0D17665544332211CCBBAA998877 0718665544332211 03194005 031A2000 081B66554433221101 021C02",
        "111D00112233445566778899AABBCCDDEEFF 111E00112233445566778899AABBCCDDEEFF",
        "112200112233445566778899AABBCCDDEEFF 112300112233445566778899AABBCCDDEEFF",
        "0F24172F2F6578616D706C652E636F6D 0624C2802F2F61",
        "0F253D78563412FFFFFFFFF616E80325 0625030A00F6FF",
        "0B26010203AABBCC010C01DD 0927FF01000000000000 0828FFFFFFFF1F1000",
        "172901020304000300112233445566778899AABBCCDDEEFF 0A2A811122334455667788",
        "172B0102010203040506070800000010 1112131415161718",
        "142B0000112233445566778899AABBCCDDEEFF0801",
        "222C00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF00",
        "112D30313233343536373839303132333435 072E010203040506 042F001000 0530 54657374",
        "0E310102030405AABBCCDD11223344 093201020304 05060708 0634 0102030405 033D8105",
        "06FFFFFF424C45 053301020304",
        ADFixtures.f1ADV, ADFixtures.f1RSP, ADFixtures.f2ADV, ADFixtures.f3ADV, ADFixtures.f6ADV,
        ADFixtures.f9ADV, ADFixtures.f9RSP, ADFixtures.f10RSP,
        WellKnown.iBeacon, WellKnown.eddystoneUID, WellKnown.eddystoneURL, WellKnown.eddystoneTLM,
        WellKnown.eddystoneETLM, WellKnown.eddystoneEID, WellKnown.swiftPairLE, WellKnown.swiftPairBREDR,
        WellKnown.swiftPairDual, WellKnown.fastPairModel, WellKnown.fastPairAccount,
        WellKnown.exposureNotification, WellKnown.altBeacon,
    ]
}
