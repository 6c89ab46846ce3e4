import BLEAdvBudget
import BLEInspectCore
import Testing

/// Android, legacy and extended layouts and limits; expected values worked out by hand from
/// ../shared/docs/ADVERTISING.md (§1.2, §1.3, §3, §4), cited per test.
@Suite("Android, legacy and extended profiles")
struct AndroidAndSpecProfileTests {
    static let beaconUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    // MARK: Must-show: Android

    @Test("Android: a 30-byte name with TX power fails with ADVERTISE_FAILED_DATA_TOO_LARGE")
    func androidLongNameAndTxPower() throws {
        // §3 totalBytes(): Flags 3 (connectable, and discoverable on newer AOSP) + device name
        // 2 + 30 + TX power 3 = 38 > 31 (MAX_LEGACY_ADVERTISING_DATA_BYTES)
        // → onStartFailure(ADVERTISE_FAILED_DATA_TOO_LARGE = 1).
        let name = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"
        #expect(name.utf8.count == 30)
        var p = plan(name: name)
        p.data.txPower = -59
        let r = AdvBudgetEngine.check(p, profile: .android)
        let failure = try #require(r.findings("android.data-too-large").first)
        #expect(failure.severity == .error)
        #expect(failure.message.contains("ADVERTISE_FAILED_DATA_TOO_LARGE = 1"))
        #expect(failure.message.contains("38 bytes of 31"))
        #expect(failure.message.contains("Flags 3 + device name 32 + TX power 3"))
        #expect(r.advertisingData.countedSize == 38)
        #expect(r.advertisingData.left == -7)
        // DEVICE_NAME_MAX = 26: sent as 0x08 with the first 26 bytes (§3).
        #expect(r.name?.onAir == Array(name.utf8.prefix(26)))
        #expect(r.name?.type == 0x08)
        #expect(r.findings("android.name.truncated").count == 1)
        // Sent bytes: 02 01 02 (BTM_GENERAL_DISCOVERABLE), then name → TX power (advertiseDataToBytes order).
        #expect(r.advertisingData.bytes == bytes("02 01 02 1B 08") + Array(name.utf8.prefix(26)) + bytes("02 0A C5"))
    }

    @Test("Android: the same name without TX power and not connectable still fails; 26 bytes pass")
    func androidNameLimits() {
        // Not connectable → no Flags (§3); 2 + 30 = 32 > 31 → fails.
        var p = plan(name: String(repeating: "n", count: 30))
        p.connectable = false
        #expect(AdvBudgetEngine.check(p, profile: .android).findings("android.data-too-large").count == 1)
        // Connectable, 26-byte name: 3 + 28 = 31 → fits exactly, complete name 0x09.
        let fits = AdvBudgetEngine.check(plan(name: String(repeating: "n", count: 26)), profile: .android)
        #expect(fits.errors.isEmpty)
        #expect(fits.advertisingData.left == 0)
        #expect(fits.name?.type == 0x09)
    }

    @Test("Android: a SIG-base 128-bit UUID is sent in 2 bytes; appearance is unsupported")
    func androidUUIDWidthAndAppearance() {
        // §3: 16/32-bit iff on the SIG base (is16BitUuid); list always complete (0x03).
        var p = plan(uuids: ["0000180A-0000-1000-8000-00805F9B34FB"])
        p.data.appearance = 0x0340
        let r = AdvBudgetEngine.check(p, profile: .android)
        #expect(r.advertisingData.bytes == bytes("02 01 02 03 03 0A 18"))
        #expect(r.findings("android.key.unsupported").count == 1)
    }

    @Test("Android: scan response over 31 bytes fails too, and never carries Flags")
    func androidScanResponse() {
        var p = plan()
        p.scanResponse.manufacturerData = [ManufacturerData(company: 0x0059, data: Array(repeating: 0xAB, count: 28))]
        // 2 + 2 + 28 = 32 > 31 (§3 totalBytes(scanResponse, false)).
        let r = AdvBudgetEngine.check(p, profile: .android)
        #expect(r.findings("android.data-too-large").first?.message.contains("scan response counts 32 bytes") == true)
        #expect(!r.scanResponse.bytes.starts(with: [0x02, 0x01]))
    }

    // MARK: Must-show: iBeacon

    @Test("iBeacon: exact bytes (§4.1)")
    func iBeaconBytes() {
        // §4.1: 02 01 06 | 1A FF 4C 00 02 15 | UUID (big-endian, string order) | major 00 01 |
        // minor 00 02 | measured power −59 = 0xC5. 3 + 27 = 30 bytes; 1 spare.
        var p = AdvertPlan(id: "beacon", connectable: false)
        p.iBeacon = IBeacon(uuid: uuid(Self.beaconUUID), major: 1, minor: 2, measuredPower: -59)
        let r = AdvBudgetEngine.check(p, profile: .legacy)
        #expect(
            r.advertisingData.bytes
                == bytes("02 01 06 1A FF 4C 00 02 15 E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0 00 01 00 02 C5")
        )
        #expect(r.advertisingData.left == 1)
        #expect(r.findings.isEmpty)
        // Android: the beacon is manufacturer data 0x004C; not connectable → no Flags: 27 bytes.
        let android = AdvBudgetEngine.check(p, profile: .android)
        #expect(android.advertisingData.bytes == Array(r.advertisingData.bytes.dropFirst(3)))
    }

    @Test("Eddystone UID fills 31 bytes exactly; URL and TLM frames (§4.2)")
    func eddystone() {
        // UID: 02 01 06 | 03 03 AA FE | 17 16 AA FE 00 <tx> NID[10] BID[6] 00 00 = 3 + 4 + 24 = 31.
        var uid = AdvertPlan(id: "uid", connectable: false)
        uid.eddystone = .uid(txPower: -30, namespace: Array(1...10), instance: Array(11...16))
        let r = AdvBudgetEngine.check(uid, profile: .legacy)
        #expect(
            r.advertisingData.bytes
                == bytes("02 01 06 03 03 AA FE 17 16 AA FE 00 E2 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 00 00")
        )
        #expect(r.advertisingData.left == 0)
        // URL "https://google.com": scheme 0x03, "google", ".com" = 0x07 → LL = 6 + 7 = 0x0D.
        var url = AdvertPlan(id: "url", connectable: false)
        url.eddystone = .url(txPower: -21, url: "https://google.com")
        #expect(
            AdvBudgetEngine.check(url, profile: .legacy).advertisingData.bytes
                == bytes("02 01 06 03 03 AA FE 0D 16 AA FE 10 EB 03 67 6F 6F 67 6C 65 07")
        )
        // TLM: 20 00 | VBATT 3000 mV = 0B B8 | TEMP 23.5 °C = 0x1780 (s8.8) | ADV_CNT 100 | SEC_CNT 300; LL 0x11.
        var tlm = AdvertPlan(id: "tlm", connectable: false)
        tlm.eddystone = .tlm(batteryMillivolts: 3000, temperature: 23.5, advertCount: 100, uptimeTenths: 300)
        #expect(
            AdvBudgetEngine.check(tlm, profile: .legacy).advertisingData.bytes
                == bytes("02 01 06 03 03 AA FE 11 16 AA FE 20 00 0B B8 17 80 00 00 00 64 00 00 01 2C")
        )
    }

    // MARK: Must-show: extended vs legacy

    @Test("a 300-byte advert: fine under extended, an error under legacy")
    func threeHundredBytes() throws {
        // Two manufacturer data structures of 2 (header) + 2 (company) + 146 = 150 bytes each = 300;
        // not connectable and no beacon → no Flags. Legacy AdvData ≤ 31 (§1.2); extended ≤ 1650 (§1.3).
        var p = AdvertPlan(id: "big", connectable: false)
        p.data.manufacturerData = [
            ManufacturerData(company: 0x0059, data: Array(repeating: 0x11, count: 146)),
            ManufacturerData(company: 0x0059, data: Array(repeating: 0x22, count: 146)),
        ]
        let legacy = AdvBudgetEngine.check(p, profile: .legacy)
        #expect(legacy.advertisingData.used == 300)
        let error = try #require(legacy.findings("legacy.advertising-data.too-large").first)
        #expect(error.severity == .error)
        #expect(error.message.contains("300 bytes") && error.message.contains("269 over"))

        let extended = AdvBudgetEngine.check(p, profile: .extended(maximum: 1650))
        #expect(extended.errors.isEmpty)
        #expect(extended.advertisingData.left == 1350)
        // > 254 bytes per PDU → chained over ⌈300/254⌉ = 2 PDUs and ⌈300/251⌉ = 2 HCI fragments (§1.3).
        #expect(extended.findings("extended.chained").first?.message.contains("at least 2 PDUs") == true)
        #expect(extended.findings("extended.chained").first?.message.contains("2 HCI fragments") == true)
        #expect(extended.findings("extended.receivers").count == 1)

        // A controller maximum below 300 (HCI_LE_Read_Maximum_Advertising_Data_Length) fails.
        let small = AdvBudgetEngine.check(p, profile: .extended(maximum: 251))
        #expect(small.findings("extended.advertising-data.too-large").count == 1)
    }

    @Test("an AD structure over 255 bytes cannot be encoded (§1.1)")
    func structureTooLong() {
        var p = AdvertPlan(id: "x", connectable: false)
        p.data.manufacturerData = [ManufacturerData(company: 1, data: Array(repeating: 0, count: 253))]
        // Length = 1 (type) + 2 (company) + 253 = 256 > 255.
        let r = AdvBudgetEngine.check(p, profile: .extended(maximum: 1650))
        #expect(r.findings("ad.structure.too-long").count == 1)
    }

    @Test("legacy: connectable adverts get Flags 0x06 by default; explicit Flags are used as given")
    func legacyFlags() {
        let r = AdvBudgetEngine.check(plan(name: "N"), profile: .legacy)
        #expect(r.advertisingData.bytes == bytes("02 01 06 02 09 4E"))
        var p = plan(name: "N")
        p.flags = 0x03  // Limited + General: mutually exclusive (§1.4)
        #expect(AdvBudgetEngine.check(p, profile: .legacy).findings("ad.flags.conflict").count == 1)
    }

    @Test("extended: connectable and scannable at once is flagged (§1.3)")
    func extendedConnectableScannable() {
        var p = plan(name: "N")
        p.scanResponse.txPower = 0
        let r = AdvBudgetEngine.check(p, profile: .extended(maximum: 1650))
        #expect(r.findings("extended.connectable-scannable").count == 1)
    }

    @Test("profiles: --platform wins, then the plan's own list, then ios + android")
    func profileSelection() {
        var p = plan()
        #expect(
            AdvBudgetEngine.profiles(for: p, platforms: nil).map(\.id) == [
                "ios-foreground", "ios-background", "android",
            ]
        )
        p.platforms = [.legacy]
        #expect(AdvBudgetEngine.profiles(for: p, platforms: nil).map(\.id) == ["legacy"])
        #expect(AdvBudgetEngine.profiles(for: p, platforms: [.extended, .extended]).map(\.id) == ["extended"])
    }
}
