import BLEAdvBudget
import BLEInspectCore
import Foundation
import Testing

/// iOS `startAdvertising` layouts. Every expected byte string below was worked out by hand from
/// ../shared/docs/ADVERTISING.md (sections cited per test) or copied from its on-air fixtures
/// (§2.3 F2–F7), never from the program's output.
@Suite("iOS profile")
struct IOSProfileTests {
    static let longName = "com.example.corebluetooth"
    static let vendorUUID = "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E"

    // MARK: Must-show: foreground

    @Test("foreground: long name + 128-bit UUID: the UUID fits, the name is cut to fill 31 bytes")
    func foregroundLongNameAndVendorUUID() throws {
        // §2.5: budget 31 − 3 (Flags 02 01 1A, §2.3 fact 1) = 28.
        // The 128-bit UUID costs 16 + 2 header = 18 ≤ 28 → advertising data, 10 left.
        //   Nothing overflowed → complete list 0x07 (§2.3 fact 4); Length = 1 + 16 = 0x11.
        //   UUID bytes little-endian (§1.1): 4B BA 6C AA BF C8 46 A6 AB 3D CF CA 5C 96 D3 9E reversed.
        // Name: 25 UTF-8 bytes; 2 + 25 = 27 > 10, and 10 ≥ 3 → shortened 0x08 with 10 − 2 = 8 bytes
        //   "com.exam" = 63 6F 6D 2E 65 78 61 6D; Length = 1 + 8 = 0x09 (§2.5, §2.4: 3 + 18 + 10 = 31).
        let r = AdvBudgetEngine.check(
            plan(name: Self.longName, uuids: [Self.vendorUUID]),
            profile: .iosForeground
        )
        #expect(
            r.advertisingData.bytes
                == bytes(
                    "02 01 1A"
                        + "11 07 9E D3 96 5C CA CF 3D AB A6 46 C8 BF AA 6C BA 4B"
                        + "09 08 63 6F 6D 2E 65 78 61 6D"
                )
        )
        #expect(r.advertisingData.used == 31)
        #expect(r.advertisingData.left == 0)
        #expect(r.advertisingData.structures.map(\.offset) == [0, 3, 21])
        #expect(r.scanResponse.bytes.isEmpty)  // nothing overflowed (§2.3 fact 6)
        let name = try #require(r.name)
        #expect(name.onAir == Array("com.exam".utf8))
        #expect(name.type == 0x08)
        #expect(name.isCut)
        #expect(r.uuids.map(\.place) == [.advertisingData])
        #expect(r.uuids.first?.seenByOtherScanners == true)
        // A cut name is an error; nothing uncertain is involved here.
        let truncated = try #require(r.findings("ios.name.truncated").first)
        #expect(truncated.severity == .error)
        #expect(truncated.message.hasPrefix("\"com.example.corebluetooth\" → \"com.exam\" (0x08)"))
        #expect(r.errors.count == 1)
    }

    @Test("foreground: Device + 180A: everything fits, 16 bytes left")
    func foregroundShortNameAndSIGUUID() {
        // §2.5: 28 after Flags. 16-bit 180A: 2 + 2 = 4 → 24 left; list 0x03, data 0A 18 (LE).
        // Name "Device" (44 65 76 69 63 65): 2 + 6 = 8 ≤ 24 → complete 0x09, Length 7; 16 left.
        // On air: 3 + 4 + 8 = 15 bytes; 31 − 15 = 16 (§2.4 table: one 16-bit UUID leaves 24 for the name AD).
        let r = AdvBudgetEngine.check(plan(name: "Device", uuids: ["180A"]), profile: .iosForeground)
        #expect(r.advertisingData.bytes == bytes("02 01 1A 03 03 0A 18 07 09 44 65 76 69 63 65"))
        #expect(r.advertisingData.used == 15)
        #expect(r.advertisingData.left == 16)
        #expect(r.scanResponse.left == 31)
        #expect(r.name?.isCut == false)
        #expect(r.name?.type == 0x09)
        #expect(r.findings.isEmpty)
    }

    // MARK: Must-show: background

    @Test("background: no name, every UUID in the overflow bitmap")
    func backgroundFormsOfBothPlans() throws {
        // §2.6 (iOS 11 form): ADV = 02 01 1A + overflow AD 14 FF 4C 00 01 <16-byte bitmap> = 24 bytes,
        // scan response empty, no name (§2.1 Source A/C).
        // Bits (§2.7): c = CRC-8/0x09 over the 16 big-endian UUID bytes, & 0x7F, computed with the
        // Python reference implementation quoted in §2.7 (not with this program):
        //   4BBA6CAA-…-CFCA5C96D39E: c = 124 → byte 15; order B mask 0x80 >> 4 = 0x08, order A 1 << 4 = 0x10.
        //   180A (0000180A-0000-1000-8000-00805F9B34FB): c = 1 → byte 0; order B 0x80 >> 1 = 0x40, A 0x02.
        let long = AdvBudgetEngine.check(
            plan(name: Self.longName, uuids: [Self.vendorUUID]),
            profile: .iosBackground
        )
        #expect(
            long.advertisingData.bytes
                == bytes("02 01 1A 14 FF 4C 00 01" + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 08")
        )
        #expect(long.advertisingData.used == 24)
        #expect(long.scanResponse.bytes.isEmpty)
        #expect(long.name?.onAir == nil)
        let longBit = try #require(long.overflow?.bits.first)
        #expect(longBit.hash == 124)
        #expect(longBit.byte == 15 && longBit.msbFirstMask == 0x08 && longBit.lsbFirstMask == 0x10)
        #expect(long.uuids.map(\.place) == [.overflowArea])
        #expect(long.uuids.first?.seenByOtherScanners == false)
        #expect(long.uuids.first?.seenByIOSFilteringScanner == true)

        let device = AdvBudgetEngine.check(plan(name: "Device", uuids: ["180A"]), profile: .iosBackground)
        #expect(
            device.advertisingData.bytes
                == bytes("02 01 1A 14 FF 4C 00 01" + "40 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")
        )
        let deviceBit = try #require(device.overflow?.bits.first)
        #expect(deviceBit.hash == 1)
        #expect(deviceBit.byte == 0 && deviceBit.msbFirstMask == 0x40 && deviceBit.lsbFirstMask == 0x02)

        // The LSB-first order (iOS 11 captures) puts 0x02 in byte 0 instead.
        let lsb = AdvBudgetEngine.check(
            plan(name: "Device", uuids: ["180A"]),
            profile: .iosBackground,
            options: CheckOptions(overflowBitOrder: .lsbFirst)
        )
        #expect(lsb.overflow?.bitmap == bytes("02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))

        for r in [long, device] {
            // Background consequences are certain but inherent: warnings. Bit order is uncertain (§5.1).
            #expect(r.findings("ios.background.name-not-advertised").first?.severity == .warning)
            #expect(r.findings("ios.background.uuid-overflow").first?.severity == .warning)
            #expect(r.findings("ios.overflow.bit-order").first?.severity == .warning)
            #expect(r.errors.isEmpty)
        }
    }

    // MARK: Must-show: overflow bits against the published table

    @Test("three 128-bit UUIDs: the first fits, two overflow, bits as in the published table")
    func threeVendorUUIDs() throws {
        // Published values (§2.7 test-vector table):
        //   2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6: c = 83  → A: byte 10 0x08 (F7 ✔), B: byte 10 0x10
        //   9AA4730F-B25C-4CC3-B821-C931559FC196: c = 66  → A: byte 8 0x04,         B: byte 8 0x20
        //   00000000-0000-0000-0000-000000000039: c = 120 → A: byte 15 0x01,        B: byte 15 0x80 (F8 ✔)
        // Foreground (§2.5): the first costs 18 of 28 → 10 left; the next two need 16 > 10 → overflow.
        //   Something overflowed → list 0x06, incomplete (§2.3 fact 4, F1). The overflow AD goes in
        //   the scan response (§2.3 F1, §2.5) with only the overflowed UUIDs' bits (§2.5 note 1).
        let uuids = [
            "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", "9AA4730F-B25C-4CC3-B821-C931559FC196",
            "00000000-0000-0000-0000-000000000039",
        ]
        let r = AdvBudgetEngine.check(plan(uuids: uuids), profile: .iosForeground)
        #expect(r.advertisingData.bytes == bytes("02 01 1A 11 06 A6 FF A9 1B 91 F4 F2 AD 0F 4A 6D CF 54 44 23 2F"))
        #expect(r.uuids.map(\.place) == [.advertisingData, .overflowArea, .overflowArea])
        let bits = try #require(r.overflow?.bits)
        #expect(bits.map(\.hash) == [66, 120])
        #expect(bits.map(\.byte) == [8, 15])
        #expect(bits.map(\.msbFirstMask) == [0x20, 0x80])
        #expect(bits.map(\.lsbFirstMask) == [0x04, 0x01])
        #expect(r.overflow?.placement == .scanResponse)
        #expect(
            r.scanResponse.bytes == bytes("14 FF 4C 00 01" + "00 00 00 00 00 00 00 00 20 00 00 00 00 00 00 80")
        )
        #expect(r.findings("ios.uuid.overflow").count == 2)
        #expect(r.findings("ios.uuid.overflow").allSatisfy { $0.severity == .error })

        // Background: all three, with the first one's bit too (c = 83 → byte 10).
        let bg = AdvBudgetEngine.check(plan(uuids: uuids), profile: .iosBackground)
        #expect(bg.overflow?.bits.map(\.hash) == [83, 66, 120])
        #expect(bg.overflow?.bitmap == bytes("00 00 00 00 00 00 00 00 20 00 10 00 00 00 00 80"))
        let lsb = AdvBudgetEngine.check(
            plan(uuids: uuids),
            profile: .iosBackground,
            options: CheckOptions(overflowBitOrder: .lsbFirst)
        )
        #expect(lsb.overflow?.bitmap == bytes("00 00 00 00 00 00 00 00 04 00 08 00 00 00 00 01"))
    }

    @Test("the hash reproduces every row of the published test-vector table")
    func publishedTestVectors() {
        // §2.7 table: UUID, c, then order A and order B (byte, mask).
        let rows: [(String, Int, Int, UInt8, UInt8)] = [
            ("180D", 61, 7, 0x20, 0x04), ("FEAA", 84, 10, 0x10, 0x08), ("CAFE", 35, 4, 0x08, 0x10),
            ("C007", 36, 4, 0x10, 0x08), ("1001", 57, 7, 0x02, 0x40), ("3333", 57, 7, 0x02, 0x40),
            ("0000FEF3", 71, 8, 0x80, 0x01), ("9AA4730F-B25C-4CC3-B821-C931559FC196", 66, 8, 0x04, 0x20),
            ("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", 83, 10, 0x08, 0x10),
            ("00000000-0000-0000-0000-000000000000", 0, 0, 0x01, 0x80),
            ("00000000-0000-0000-0000-000000000039", 120, 15, 0x01, 0x80),
        ]
        for (text, c, byte, maskA, maskB) in rows {
            let bit = OverflowBit(uuid(text))
            #expect(bit.hash == c, "\(text)")
            #expect(bit.byte == byte, "\(text)")
            #expect(bit.lsbFirstMask == maskA, "\(text)")
            #expect(bit.msbFirstMask == maskB, "\(text)")
        }
    }

    // MARK: On-air fixtures (§2.3)

    @Test("F2 and F6: foreground layouts equal the captured advertising data")
    func foregroundFixtures() {
        // F2: name "Fred", UUID C007 → 02011a 030307c0 050946726564, scan response empty.
        let f2 = AdvBudgetEngine.check(plan(name: "Fred", uuids: ["C007"]), profile: .iosForeground)
        #expect(f2.advertisingData.bytes == bytes("02011a 030307c0 050946726564"))
        #expect(f2.scanResponse.bytes.isEmpty)
        // F6: UUID 2F234454-… → 02011a 1107 a6ffa91b91f4f2ad0f4a6dcf5444232f.
        let f6 = AdvBudgetEngine.check(plan(uuids: ["2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"]), profile: .iosForeground)
        #expect(f6.advertisingData.bytes == bytes("02011a 1107 a6ffa91b91f4f2ad0f4a6dcf5444232f"))
    }

    @Test("F3, F5 and F7: background layouts in the iOS 11 bit order equal the captures")
    func backgroundFixtures() {
        let iOS11 = CheckOptions(overflowBitOrder: .lsbFirst)
        let cases: [(String, String)] = [
            ("C007", "02011a 14ff4c0001 00000000100000000000000000000000"),  // F3
            ("1001", "02011a 14ff4c0001 00000000000000020000000000000000"),  // F5
            ("3333", "02011a 14ff4c0001 00000000000000020000000000000000"),  // F5 (same bit)
            ("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", "02011a 14ff4c0001 00000000000000000000080000000000"),  // F7
        ]
        for (text, air) in cases {
            let r = AdvBudgetEngine.check(plan(name: "Fred", uuids: [text]), profile: .iosBackground, options: iOS11)
            #expect(r.advertisingData.bytes == bytes(air), "\(text)")
            #expect(r.scanResponse.bytes.isEmpty)
        }
    }

    // MARK: Other rules

    @Test("1001 and 3333 collide in the overflow area (§2.7)")
    func collision() {
        let r = AdvBudgetEngine.check(plan(uuids: ["1001", "3333"]), profile: .iosBackground)
        #expect(r.findings("ios.overflow.collision").count == 1)
        #expect(r.findings("ios.overflow.collision").first?.severity == .warning)
    }

    @Test("keys iOS drops are errors; fixed Flags and connectability are warnings")
    func droppedKeys() {
        var p = plan(name: "Dev")
        p.data.manufacturerData = [ManufacturerData(company: 0x004C, data: [1, 2])]
        p.data.serviceData = [ServiceData(uuid: uuid("FEAA"), data: [0])]
        p.data.txPower = -4
        p.data.appearance = 0x0340
        p.flags = 0x06
        p.connectable = false
        p.otherKeys = ["CBAdvertisementDataIsConnectable"]
        let r = AdvBudgetEngine.check(p, profile: .iosForeground)
        // manufacturer data, service data, TX power, appearance, the extra source key (§2.1, §2.2).
        #expect(r.findings("ios.key.dropped").count == 5)
        #expect(r.findings("ios.key.dropped").allSatisfy { $0.severity == .error })
        #expect(r.findings("ios.key.dropped").last?.message.hasPrefix("`CBAdvertisementDataIsConnectable`") == true)
        #expect(r.findings("ios.flags.fixed").count == 1)
        #expect(r.findings("ios.connectable.fixed").count == 1)
        // Dropped fields are not on air: Flags 0x1A + the name only ("Dev": Length 1 + 3 = 4).
        #expect(r.advertisingData.bytes == bytes("02 01 1A 04 09 44 65 76"))
    }

    @Test("a name with fewer than 3 bytes left goes (uncertainly) to the scan response, 8 bytes at most")
    func nameInScanResponse() throws {
        // 13 × 16-bit UUIDs: 2 + 13 × 2 = 28 → 0 left (§2.5). The name "ABCDEFGHIJ" (10 bytes)
        // then goes to the scan response, cut to 8 as 0x08 (§2.5 last branch, UNCERTAIN §5.3).
        let uuids = (0..<13).map { String(format: "%04X", 0x1800 + $0) }
        let r = AdvBudgetEngine.check(plan(name: "ABCDEFGHIJ", uuids: uuids), profile: .iosForeground)
        #expect(r.advertisingData.used == 31)
        #expect(r.scanResponse.bytes == bytes("09 08 41 42 43 44 45 46 47 48"))
        let finding = try #require(r.findings("ios.name.scan-response").first)
        #expect(finding.severity == .warning)
        #expect(r.errors.isEmpty)
    }

    @Test("a later 16-bit UUID placed after a 128-bit one overflowed is flagged as uncertain")
    func greedyPlacementUncertain() {
        // 18 + 18 > 28 → the second 128-bit overflows; 180A (4 bytes) still fits in the 10 left (§2.5),
        // but whether iOS continues after an overflow is unknown (§2.5 note 2) → warning.
        let r = AdvBudgetEngine.check(
            plan(uuids: ["2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", "9AA4730F-B25C-4CC3-B821-C931559FC196", "180A"]),
            profile: .iosForeground
        )
        #expect(r.uuids.map(\.place) == [.advertisingData, .overflowArea, .advertisingData])
        #expect(r.findings("ios.uuid.placement-uncertain").count == 1)
        #expect(r.findings("ios.uuid.list-type-uncertain").count == 1)  // 0x02 never observed
        #expect(r.findings("ios.uuid.mixed-widths").count == 1)
        // Lists: 16-bit incomplete 0x02 (02 02 0A 18), 128-bit incomplete 0x06.
        #expect(r.advertisingData.bytes.prefix(7) == bytes("02 01 1A 03 02 0A 18")[...])
    }

    @Test("a name cut inside a UTF-8 character is flagged (§5.8)")
    func utf8Split() {
        // One 128-bit UUID leaves 8 name bytes; "abcdefgé" is 7 + 2 bytes, so the cut at 8 splits é.
        let r = AdvBudgetEngine.check(plan(name: "abcdefgéxyz", uuids: [Self.vendorUUID]), profile: .iosForeground)
        #expect(r.name?.onAir == Array("abcdefg".utf8) + [0xC3])
        #expect(r.findings("ios.name.utf8-split").count == 1)
    }

    @Test("an iBeacon from iOS: Flags 0x1A + the 27-byte beacon, and it stops in the background")
    func iBeaconOnIOS() {
        var p = AdvertPlan(id: "beacon")
        p.iBeacon = IBeacon(uuid: uuid("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), major: 1, minor: 2, measuredPower: -59)
        // §4.1: "iPhone-transmitted iBeacons use 0x1A": 02 01 1A 1A FF 4C 00 02 15 <UUID> 00 01 00 02 C5.
        let fg = AdvBudgetEngine.check(p, profile: .iosForeground)
        #expect(
            fg.advertisingData.bytes
                == bytes("02 01 1A 1A FF 4C 00 02 15 E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0 00 01 00 02 C5")
        )
        let bg = AdvBudgetEngine.check(p, profile: .iosBackground)
        #expect(bg.advertisingData.bytes.isEmpty)
        #expect(bg.findings("ios.background.ibeacon-stops").count == 1)
    }

    @Test("a SIG-base UUID in 128-bit form stays 16 bytes on iOS (§2.3 fact 3)")
    func sigBaseIn128BitForm() {
        let r = AdvBudgetEngine.check(plan(uuids: ["0000180A-0000-1000-8000-00805F9B34FB"]), profile: .iosForeground)
        #expect(r.advertisingData.used == 3 + 18)
        #expect(r.findings("ios.uuid.base-128").count == 1)
    }
}
