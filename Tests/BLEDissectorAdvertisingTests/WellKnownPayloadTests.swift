import BLECaptureTestSupport
import BLEDissectorAdvertising
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// The on-air fixtures of ../shared/docs/ADVERTISING.md §2.3 (iOS CoreBluetooth advertising).
enum ADFixtures {
    static let f1ADV = "02011a 11067f00000079e3e78e82319dfbf045bdd2 09084c69676874426c75"
    static let f1RSP = "14ff4c0001 00000000000000000000000000000002"
    static let f2ADV = "02011a 030307c0 050946726564"
    static let f3ADV = "02011a 14ff4c0001 00000000100000000000000000000000"
    static let f4ADV = "02011a 14ff4c0001 00000000000000080000000000000000"
    static let f5ADV = "02011a 14ff4c0001 00000000000000020000000000000000"
    static let f6ADV = "02011a 1107a6ffa91b91f4f2ad0f4a6dcf5444232f"
    static let f7ADV = "02011a 14ff4c0001 00000000000000000000080000000000"
    static let f8RSP = "14ff4c0001 00000000000000000000000000000080"
    static let f9ADV = "02011a 020a0c 0bff4c001006751ed2650364"
    /// F9's second advertising set; the document elides 13 octets of the Handoff item (zeros here).
    static let f9ADV2 = "02011a 1aff4c00 0c0e00" + String(repeating: "00", count: 13) + "1005751cd26503"
    static let f9RSP = "14ff4c0001 e0010000000004801000100400880028"
    static let f10RSP = "14ff4c0001 00000000000000000000000080000000"
}

/// Beacon and pairing payloads.
enum WellKnown {
    static let iBeacon = "020106 1aff4c000215 e2c56db5dffb48d2b060d0f5a71096e0 0001 0002 c5"
    static let eddystoneUID = "020106 0303aafe 1716aafe 00 e2 0102030405060708090a 0b0c0d0e0f10 0000"
    static let eddystoneURL = "0303aafe 0d16aafe 10 eb 03 676f6f676c65 07"
    static let eddystoneTLM = "0303aafe 1116aafe 20 00 0bb8 1780 00000064 0000012c"
    static let eddystoneETLM = "1516aafe 20 01 0102030405060708090a0b0c 1234 5678"
    static let eddystoneEID = "0d16aafe 30 e7 0102030405060708"
    static let swiftPairLE = "0bff 0600 03 00 80 4d6f757365"
    static let swiftPairBREDR = "11ff 0600 03 01 80 665544332211 040424 4869"
    static let swiftPairDual = "0bff 0600 03 02 80 040424 4869"
    static let fastPairModel = "06162cfe aabbcc"
    static let fastPairAccount = "0f162cfe 00 40 11223344 11 55 33 57417f"
    static let exposureNotification = "03036ffd 17166ffd 00112233445566778899aabbccddeeff 40010203"
    static let altBeacon = "1bff 1801 beac 00112233445566778899aabbccddeeff01020304 c5 00"
}

@Suite struct FixtureTests {
    @Test func f1ForegroundNameAndOverflowedUUID() {
        let adv = AD.block(ADFixtures.f1ADV)
        #expect(adv.frame.bytes.count == 31)
        #expect(adv.uints("btcommon.eir_ad.entry.type") == [0x01, 0x06, 0x08])
        #expect(adv.uuids("adv.uuid") == [uuid("D2BD45F0-FB9D-3182-8EE7-E3790000007F")])
        #expect(adv.strings("adv.name") == ["LightBlu"])
        #expect(
            adv.strings("btcommon.eir_ad.entry") == [
                "Flags", "Incomplete List of 128-bit Service or Service Class UUIDs", "Shortened Local Name",
            ]
        )
        let rsp = AD.block(ADFixtures.f1RSP)
        #expect(rsp.uints("btcommon.eir_ad.entry.company_id") == [0x004C])
        #expect(rsp.uints("apple.type") == [0x01])
        #expect(rsp.uints("apple.overflow.bit") == [121])
        #expect(!rsp.isMalformed)
    }

    @Test func f2ForegroundShortUUIDAndName() {
        let s = AD.block(ADFixtures.f2ADV)
        #expect(s.uints("btcommon.eir_ad.entry.uuid_16") == [0xC007])
        #expect(s.strings("adv.name") == ["Fred"])
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_bredr_support_host") == [true])
        #expect(!s.isMalformed)
    }

    @Test func backgroundOverflowBits() {
        // F3–F5, F7: iOS 11 era, the LSB-first order.
        let cases: [(String, Int, BluetoothUUID)] = [
            (ADFixtures.f3ADV, 36, BluetoothUUID(uuid16: 0xC007)),
            (ADFixtures.f4ADV, 59, BluetoothUUID(uuid16: 0xC008)),
            (ADFixtures.f5ADV, 57, BluetoothUUID(uuid16: 0x1001)),
            (ADFixtures.f5ADV, 57, BluetoothUUID(uuid16: 0x3333)),
            (ADFixtures.f7ADV, 83, uuid("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")),
        ]
        for (hex, bit, service) in cases {
            let state = CaptureState()
            AppleOverflowUUIDList.in(state).add(service, name: "test service")
            let s = AD.block(hex, state: state)
            #expect(s.uints("apple.overflow.bit") == [UInt64(bit)])
            #expect(s.uuids("apple.overflow.uuid.lsb_first") == [service])
            #expect(s.strings("apple.overflow.name") == ["test service"])
            #expect(AppleOverflowArea.bitPositions(service).lsbFirst == bit)
            #expect(!s.isMalformed)
        }
    }

    @Test func f6ForegroundFullUUID() {
        let s = AD.block(ADFixtures.f6ADV)
        #expect(s.uuids("btcommon.eir_ad.entry.custom_uuid_128") == [uuid("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")])
    }

    @Test func f8MSBFirstOrder() {
        let service = uuid("00000000-0000-0000-0000-000000000039")
        let state = CaptureState()
        AppleOverflowUUIDList.in(state).add(service)
        let s = AD.block(ADFixtures.f8RSP, state: state)
        #expect(s.uints("apple.overflow.bit") == [127])
        #expect(s.uuids("apple.overflow.uuid.msb_first") == [service])
        #expect(!s.has("apple.overflow.uuid.lsb_first"))
    }

    @Test func f9ContinuityAdvertisingSet() {
        let adv = AD.block(ADFixtures.f9ADV)
        #expect(adv.ints("btcommon.eir_ad.entry.power_level") == [12])
        #expect(adv.uints("apple.type") == [0x10])
        #expect(adv.uints("apple.length") == [6])
        #expect(adv.hex("apple.data") == ["751ed2650364"])
        #expect(AD.name("apple.type", 0x10) == "Nearby Info")
        let adv2 = AD.block(ADFixtures.f9ADV2)
        #expect(adv2.uints("apple.type") == [0x0C, 0x10])
        #expect(adv2.uints("apple.length") == [14, 5])
        #expect(!adv2.isMalformed)
        let rsp = AD.block(ADFixtures.f9RSP)
        // e0 01 00 00 00 00 04 80 10 00 10 04 00 88 00 28
        #expect(
            rsp.uints("apple.overflow.bit") == [5, 6, 7, 8, 50, 63, 68, 84, 90, 107, 111, 123, 125]
        )
        #expect(!rsp.isMalformed)
    }

    @Test func f10DeviceWideBit() {
        let s = AD.block(ADFixtures.f10RSP)
        #expect(s.uints("apple.overflow.bit") == [103])
    }

    @Test func overflowAreaNeedsSixteenOctets() {
        #expect(AD.block("0Cff4c0001 0000000000000000").isMalformed)
    }
}

@Suite struct AppleOverflowAreaTests {
    /// The table of ADVERTISING.md §2.7: c for each UUID.
    @Test func hashIndexVectors() {
        let vectors: [(BluetoothUUID, Int)] = [
            (BluetoothUUID(uuid16: 0x180D), 61), (BluetoothUUID(uuid16: 0xFEAA), 84),
            (BluetoothUUID(uuid16: 0xCAFE), 35), (BluetoothUUID(uuid16: 0xC007), 36),
            (BluetoothUUID(uuid16: 0x1001), 57), (BluetoothUUID(uuid16: 0x3333), 57),
            (BluetoothUUID(uuid32: 0xFEF3), 71),
            (uuid("9AA4730F-B25C-4CC3-B821-C931559FC196"), 66),
            (uuid("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"), 83),
            (uuid("00000000-0000-0000-0000-000000000000"), 0),
            (uuid("00000000-0000-0000-0000-000000000039"), 120),
        ]
        for (service, c) in vectors {
            #expect(AppleOverflowArea.hashIndex(service) == c, "\(service)")
            #expect(AppleOverflowArea.bitPositions(service) == (c, c ^ 7))
        }
    }

    @Test func octetsAndMasks() {
        // 180D: LSB-first octet 7 mask 0x20, MSB-first octet 7 mask 0x04.
        let (lsb, msb) = AppleOverflowArea.bitPositions(BluetoothUUID(uuid16: 0x180D))
        #expect(AppleOverflowArea.octetAndMask(position: lsb) == (7, 0x20))
        #expect(AppleOverflowArea.octetAndMask(position: msb) == (7, 0x04))
        #expect(AppleOverflowArea.setBits(Hex.bytes("00000000000000000000000080000001")) == [103, 120])
    }

    @Test func knownUUIDsAreMappedWithoutAsking() {
        // The Apple Watch setup service sets bit 69 in the MSB-first order.
        let bitmap = [UInt8](repeating: 0, count: 8) + [0x20] + [UInt8](repeating: 0, count: 7)
        let s = AD.block([0x14, 0xFF, 0x4C, 0x00, 0x01] + bitmap)
        #expect(s.uints("apple.overflow.bit") == [69])
        #expect(s.uuids("apple.overflow.uuid.msb_first") == [uuid("9AA4730F-B25C-4CC3-B821-C931559FC196")])
        #expect(s.strings("apple.overflow.name") == ["Apple Watch setup"])
    }

    @Test func userListIsBoundedAndDeduplicated() {
        let list = AppleOverflowUUIDList(includeKnown: false)
        #expect(list.add(BluetoothUUID(uuid16: 0x180D)))
        #expect(!list.add(BluetoothUUID(uuid16: 0x180D)))
        #expect(list.entries.count == 1)
    }
}

@Suite struct BeaconTests {
    @Test func iBeacon() {
        let s = AD.block(WellKnown.iBeacon)
        #expect(s.uints("btcommon.eir_ad.entry.company_id") == [0x004C])
        #expect(s.uints("apple.type") == [0x02])
        #expect(s.uints("apple.length") == [0x15])
        #expect(s.has("ibeacon"))
        #expect(s.uuids("bluetooth.apple.ibeacon.uuid128") == [uuid("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")])
        #expect(s.uints("bluetooth.apple.ibeacon.major") == [1])
        #expect(s.uints("bluetooth.apple.ibeacon.minor") == [2])
        #expect(s.ints("ibeacon.measured_power") == [-59])
        #expect(!s.isMalformed)
        // The Apple payload stays available as data.
        #expect(s.hex("btcommon.eir_ad.entry.data").first?.hasPrefix("0215e2c5") == true)
    }

    @Test func eddystoneUID() {
        let s = AD.block(WellKnown.eddystoneUID)
        #expect(s.uuids("adv.uuid") == [BluetoothUUID(uuid16: 0xFEAA), BluetoothUUID(uuid16: 0xFEAA)])
        #expect(s.uints("eddystone.frame_type") == [0x00])
        #expect(s.ints("eddystone.tx_power") == [-30])
        #expect(s.hex("eddystone.uid.namespace") == ["0102030405060708090a"])
        #expect(s.hex("eddystone.uid.instance") == ["0b0c0d0e0f10"])
        #expect(s.hex("eddystone.uid.reserved") == ["0000"])
        #expect(!s.isMalformed)
        // The legacy form without the two reserved octets.
        #expect(!AD.block("1516aafe00e20102030405060708090a0b0c0d0e0f10").isMalformed)
    }

    @Test func eddystoneURL() {
        let s = AD.block(WellKnown.eddystoneURL)
        #expect(s.uints("eddystone.frame_type") == [0x10])
        #expect(s.ints("eddystone.tx_power") == [-21])
        #expect(s.uints("eddystone.url.scheme") == [3])
        #expect(s.strings("eddystone.url") == ["https://google.com"])
        #expect(AD.name("eddystone.url.scheme", 0) == "http://www.")
        #expect(s.expertMessages.isEmpty)
        let expanded = AD.block("0c16aafe10eb00 61 00 62 0d 632f")
        #expect(expanded.strings("eddystone.url") == ["http://www.a.com/b.govc/"])
        let reserved = AD.block("0816aafe10eb02 61 10")
        #expect(reserved.strings("eddystone.url").first?.hasPrefix("http://a") == true)
        #expect(reserved.expertMessages.count == 1)
    }

    @Test func eddystoneTLM() {
        let s = AD.block(WellKnown.eddystoneTLM)
        #expect(s.uints("eddystone.tlm.version") == [0])
        #expect(s.uints("eddystone.tlm.battery_voltage") == [3000])
        #expect(s.ints("eddystone.tlm.temperature") == [0x1780])
        #expect(s.uints("eddystone.tlm.adv_count") == [100])
        #expect(s.uints("eddystone.tlm.sec_count") == [300])
        #expect(!s.isMalformed)
        #expect(AD.name("eddystone.tlm.temperature", UInt64(bitPattern: -0x8000)) == "Not supported")
        let e = AD.block(WellKnown.eddystoneETLM)
        #expect(e.uints("eddystone.tlm.version") == [1])
        #expect(e.hex("eddystone.tlm.etlm") == ["0102030405060708090a0b0c"])
        #expect(e.uints("eddystone.tlm.salt") == [0x1234])
        #expect(e.uints("eddystone.tlm.mic") == [0x5678])
        #expect(!e.isMalformed)
    }

    @Test func eddystoneEID() {
        let s = AD.block(WellKnown.eddystoneEID)
        #expect(s.uints("eddystone.frame_type") == [0x30])
        #expect(s.ints("eddystone.tx_power") == [-25])
        #expect(s.hex("eddystone.eid") == ["0102030405060708"])
        #expect(!s.isMalformed)
        #expect(AD.block("0816aafe30e7010203").isMalformed)
    }

    @Test func swiftPair() {
        let le = AD.block(WellKnown.swiftPairLE)
        #expect(le.uints("btcommon.eir_ad.entry.company_id") == [0x0006])
        #expect(le.uints("swiftpair.beacon_id") == [3])
        #expect(le.uints("swiftpair.sub_scenario") == [0])
        #expect(le.uints("swiftpair.reserved_rssi") == [0x80])
        #expect(le.strings("swiftpair.display_name") == ["Mouse"])
        #expect(!le.isMalformed)
        let bredr = AD.block(WellKnown.swiftPairBREDR)
        #expect(bredr.uints("swiftpair.sub_scenario") == [1])
        #expect(bredr.addresses("swiftpair.bredr_address") == ["11:22:33:44:55:66"])
        #expect(bredr.uints("swiftpair.icon") == [0x24_0404])
        #expect(bredr.strings("swiftpair.display_name") == ["Hi"])
        let dual = AD.block(WellKnown.swiftPairDual)
        #expect(dual.uints("swiftpair.sub_scenario") == [2])
        #expect(dual.uints("swiftpair.icon") == [0x24_0404])
        #expect(dual.strings("swiftpair.display_name") == ["Hi"])
        // Another Microsoft beacon (Connected Devices Platform) is data.
        let cdp = AD.block("08ff0600 01 0920 0000")
        #expect(cdp.uints("swiftpair.beacon_id") == [1])
        #expect(cdp.hex("swiftpair.data") == ["09200000"])
        #expect(AD.name("swiftpair.beacon_id", 1) == "Connected Devices Platform")
    }

    @Test func exposureNotification() {
        let s = AD.block(WellKnown.exposureNotification)
        #expect(s.uints("btcommon.eir_ad.entry.uuid_16") == [0xFD6F, 0xFD6F])
        #expect(s.hex("bluetooth.gaen.rpi") == ["00112233445566778899aabbccddeeff"])
        #expect(s.hex("bluetooth.gaen.aemd") == ["40010203"])
        #expect(!s.isMalformed)
    }

    @Test func altBeacon() {
        let s = AD.block(WellKnown.altBeacon)
        #expect(s.uints("btcommon.eir_ad.entry.company_id") == [0x0118])
        #expect(s.uints("bluetooth.alt_beacon.code") == [0xBEAC])
        #expect(s.hex("bluetooth.alt_beacon.id") == ["00112233445566778899aabbccddeeff01020304"])
        #expect(s.ints("bluetooth.alt_beacon.reference_rssi") == [-59])
        #expect(s.uints("bluetooth.alt_beacon.manufacturer_data") == [0])
        // Only with the right length, and never instead of a company's own decoder.
        #expect(!AD.block("05ff1801beac00").has("alt_beacon"))
        #expect(!AD.block("1bff 4c00 beac 00112233445566778899aabbccddeeff01020304 c5 00").has("alt_beacon"))
    }

    @Test func fastPair() {
        let model = AD.block(WellKnown.fastPairModel)
        #expect(model.uuids("adv.uuid") == [BluetoothUUID(uuid16: 0xFE2C)])
        #expect(model.uints("fastpair.model_id") == [0xAABBCC])
        #expect(!model.isMalformed)
        let account = AD.block(WellKnown.fastPairAccount)
        #expect(account.uints("fastpair.flags") == [0])
        #expect(account.uints("fastpair.field.type") == [0, 1, 3])
        #expect(account.uints("fastpair.field.length") == [4, 1, 3])
        #expect(account.hex("fastpair.account_key_filter") == ["11223344"])
        #expect(account.hex("fastpair.salt") == ["55"])
        #expect(account.uints("fastpair.battery") == [0x57, 0x41, 0x7F])
        #expect(account.bools("fastpair.battery.charging") == [false, false, false])
        #expect(account.uints("fastpair.battery.level") == [87, 65, 127])
        #expect(AD.name("fastpair.battery.level", 0x7F) == "Unknown")
        #expect(!account.isMalformed)
        // An empty account key list.
        let empty = AD.block("05162cfe0000")
        #expect(empty.uints("fastpair.field.length") == [0])
        #expect(!empty.isMalformed)
        // A field that declares more bytes than are left: newer versions add fields, so the rest is
        // shown as field data with a note, not marked malformed.
        let overrun = AD.block("07162cfe0040aabb")
        #expect(!overrun.isMalformed)
        #expect(overrun.hex("fastpair.field.data") == ["aabb"])
        #expect(overrun.expertMessages.contains { $0.contains("declares 4 bytes, 2 left") })
    }
}
