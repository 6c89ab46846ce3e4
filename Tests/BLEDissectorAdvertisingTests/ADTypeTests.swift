import BLECaptureTestSupport
import BLEDissectorAdvertising
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// One vector per AD type the module decodes (Core Specification Supplement Part A layouts).
@Suite struct ADTypeTests {
    @Test func flags() {
        let s = AD.block("020106")
        #expect(s.uints("btcommon.eir_ad.entry.length") == [2])
        #expect(s.uints("btcommon.eir_ad.entry.type") == [1])
        #expect(s.strings("btcommon.eir_ad.entry") == ["Flags"])
        #expect(s.uints("btcommon.eir_ad.entry.flags.reserved") == [0])
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_limited_discoverable_mode") == [false])
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_general_discoverable_mode") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.flags.bredr_not_supported") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_bredr_support_controller") == [false])
        #expect(s.bools("btcommon.eir_ad.entry.flags.le_bredr_support_host") == [false])
        #expect(!s.isMalformed)

        let ios = AD.block("02011a")
        #expect(ios.bools("btcommon.eir_ad.entry.flags.le_bredr_support_controller") == [true])
        #expect(ios.bools("btcommon.eir_ad.entry.flags.le_bredr_support_host") == [true])
        #expect(ios.bools("btcommon.eir_ad.entry.flags.bredr_not_supported") == [false])
        #expect(AD.block("02 01 E0").uints("btcommon.eir_ad.entry.flags.reserved") == [7])
        // Zero data octets are allowed; extra octets are shown as data.
        #expect(!AD.block("0101").isMalformed)
        #expect(AD.block("03 01 06 00").hex("btcommon.eir_ad.entry.data") == ["00"])
    }

    @Test func uuidLists16() {
        for type in ["02", "03"] {
            let s = AD.block("05 \(type) 0F18 0A18")
            #expect(s.uints("btcommon.eir_ad.entry.uuid_16") == [0x180F, 0x180A])
            #expect(s.uuids("adv.uuid") == [BluetoothUUID(uuid16: 0x180F), BluetoothUUID(uuid16: 0x180A)])
            #expect(!s.has("adv.solicited_uuid"))
            #expect(!s.isMalformed)
        }
        // A UUID cut in half: the whole ones stay, the rest is malformed.
        let bad = AD.block("04 03 0F18 0A")
        #expect(bad.uints("btcommon.eir_ad.entry.uuid_16") == [0x180F])
        #expect(bad.isMalformed)
    }

    @Test func uuidLists32() {
        for type in ["04", "05"] {
            let s = AD.block("09 \(type) 78563412 0D180000")
            #expect(s.uints("btcommon.eir_ad.entry.custom_uuid_32") == [0x1234_5678])
            #expect(s.uints("btcommon.eir_ad.entry.uuid_32") == [0x180D])
            #expect(s.uuids("adv.uuid") == [BluetoothUUID(uuid32: 0x1234_5678), BluetoothUUID(uuid16: 0x180D)])
        }
    }

    @Test func uuidLists128() {
        let custom = "B1E15EC7-0000-4000-8000-000000000001"
        for type in ["06", "07"] {
            let s = AD.block("11 \(type) 0100000000000080 00400000C75EE1B1")
            #expect(s.uuids("btcommon.eir_ad.entry.custom_uuid_128") == [uuid(custom)])
            #expect(s.uuids("adv.uuid") == [uuid(custom)])
            #expect(!s.has("btcommon.eir_ad.entry.uuid_128"))
        }
        // A SIG UUID in its 128-bit form has a name, and adv.uuid matches its 16-bit form.
        let sig = AD.block("11 07 FB349B5F8000008000100000 0D180000")
        #expect(sig.uuids("btcommon.eir_ad.entry.uuid_128") == [BluetoothUUID(uuid16: 0x180D)])
        #expect(sig.uuids("adv.uuid").first?.uuid16 == 0x180D)
        #expect(sig.uuids("adv.uuid").first?.width == 16)
    }

    @Test func solicitationLists() {
        let s16 = AD.block("05 14 0D18 0F18")
        #expect(s16.uints("btcommon.eir_ad.entry.uuid_16") == [0x180D, 0x180F])
        #expect(s16.uuids("adv.solicited_uuid") == [BluetoothUUID(uuid16: 0x180D), BluetoothUUID(uuid16: 0x180F)])
        #expect(!s16.has("adv.uuid"))
        let s32 = AD.block("05 1F 0D180000")
        #expect(s32.uints("btcommon.eir_ad.entry.uuid_32") == [0x180D])
        #expect(s32.uuids("adv.solicited_uuid") == [BluetoothUUID(uuid16: 0x180D)])
        let s128 = AD.block("11 15 00112233445566778899AABBCCDDEEFF")
        #expect(s128.uuids("btcommon.eir_ad.entry.custom_uuid_128") == [uuid("FFEEDDCC-BBAA-9988-7766-554433221100")])
        #expect(s128.uuids("adv.solicited_uuid") == [uuid("FFEEDDCC-BBAA-9988-7766-554433221100")])
    }

    @Test func localNames() {
        let s = AD.block("0B 09 626C65696E7370656374")
        #expect(s.strings("btcommon.eir_ad.entry.device_name") == ["bleinspect"])
        #expect(s.strings("adv.name") == ["bleinspect"])
        #expect(s.strings("btcommon.eir_ad.entry") == ["Complete Local Name"])
        #expect(s.info == "\"bleinspect\"")
        let short = AD.block("05 08 626C6569")
        #expect(short.strings("adv.name") == ["blei"])
        #expect(short.strings("btcommon.eir_ad.entry") == ["Shortened Local Name"])
        // Untrusted text is stored raw; the summary is escaped.
        let odd = AD.block("04 09 41 1B 42")
        #expect(odd.strings("adv.name") == ["A\u{1B}B"])
        #expect(!odd.info.contains("\u{1B}"))
        // Zero octets padding a name are not part of it (as captured from a BK300 meter).
        #expect(AD.block("08 09 424B333030 0000").strings("adv.name") == ["BK300"])
        #expect(AD.block("06 09 41 00 42 0000").strings("adv.name") == ["A\u{0}B"])
    }

    @Test func txPowerLevel() {
        #expect(AD.block("020AFC").ints("btcommon.eir_ad.entry.power_level") == [-4])
        #expect(AD.block("020A0C").ints("btcommon.eir_ad.entry.power_level") == [12])
        let long = AD.block("030AFC00 020106")
        #expect(long.ints("btcommon.eir_ad.entry.power_level") == [-4])
        #expect(long.isMalformed)
        // The walk goes on after a malformed structure.
        #expect(long.bools("btcommon.eir_ad.entry.flags.le_general_discoverable_mode") == [true])
    }

    @Test func classOfDevice() {
        let s = AD.block("04 0D 0C025A")
        #expect(s.uints("adv.class_of_device") == [0x5A_020C])
        #expect(s.bools("adv.class_of_device.major_service_classes.telephony") == [true])
        #expect(s.bools("adv.class_of_device.major_service_classes.object_transfer") == [true])
        #expect(s.bools("adv.class_of_device.major_service_classes.capturing") == [true])
        #expect(s.bools("adv.class_of_device.major_service_classes.networking") == [true])
        #expect(s.bools("adv.class_of_device.major_service_classes.audio") == [false])
        #expect(s.uints("adv.class_of_device.major_device_class") == [2])
        #expect(AD.name("adv.class_of_device.major_device_class", 2) == "Phone")
        #expect(s.uints("adv.class_of_device.minor_device_class") == [3])
        #expect(s.uints("adv.class_of_device.format_type") == [0])
    }

    @Test func pairingValues() {
        let v = "00112233445566778899AABBCCDDEEFF"
        for (type, field) in [
            ("0E", "btcommon.eir_ad.entry.hash_c"), ("1D", "btcommon.eir_ad.entry.hash_c"),
            ("0F", "btcommon.eir_ad.entry.randomizer_r"), ("1E", "btcommon.eir_ad.entry.randomizer_r"),
            ("22", "btcommon.eir_ad.entry.le_secure_confirmation_value"),
            ("23", "btcommon.eir_ad.entry.le_secure_random_value"),
        ] {
            let s = AD.block("11 \(type) \(v)")
            #expect(s.hex(field) == [v.lowercased()], "type \(type)")
            #expect(!s.isMalformed)
            // Not 16 octets: shown, and marked.
            let short = AD.block("05 \(type) 00112233")
            #expect(short.hex(field) == ["00112233"])
            #expect(short.isMalformed)
        }
    }

    @Test func deviceIDAndTK() {
        let did = AD.block("09 10 0200 5E04 1234 0100")
        #expect(did.uints("btcommon.eir_ad.entry.did.vendor_id_source") == [2])
        #expect(did.uints("btcommon.eir_ad.entry.did.vendor_id") == [0x045E])
        #expect(did.uints("btcommon.eir_ad.entry.did.product_id") == [0x3412])
        #expect(did.uints("btcommon.eir_ad.entry.did.version") == [0x0001])
        #expect(AD.name("btcommon.eir_ad.entry.did.vendor_id_source", 2) == "USB Implementer's Forum")
        let tk = AD.block("11 10 00112233445566778899AABBCCDDEEFF")
        #expect(tk.hex("adv.sm_tk_value") == ["00112233445566778899aabbccddeeff"])
        #expect(AD.block("04 10 010203").isMalformed)
    }

    @Test func oobFlags() {
        let s = AD.block("02 11 0F")
        #expect(s.bools("btcommon.eir_ad.entry.oob_flags.oob_data_present") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.oob_flags.oob_le_supported_host") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.oob_flags.oob_le_bredr_support") == [true])
        #expect(s.uints("btcommon.eir_ad.entry.oob_flags.oob_address_type") == [1])
        #expect(s.uints("btcommon.eir_ad.entry.oob_flags.oob_reserved") == [0])
    }

    @Test func peripheralConnectionIntervalRange() {
        let s = AD.block("05 12 0600 8000")
        #expect(s.uints("btcommon.eir_ad.entry.connection_interval_min") == [6])
        #expect(s.uints("btcommon.eir_ad.entry.connection_interval_max") == [128])
        #expect(AD.name("btcommon.eir_ad.entry.connection_interval_max", 0xFFFF) == "No specific value")
    }

    @Test func serviceData() {
        let s16 = AD.block("04 16 0F18 57")
        #expect(s16.uints("btcommon.eir_ad.entry.uuid_16") == [0x180F])
        #expect(s16.uuids("adv.uuid") == [BluetoothUUID(uuid16: 0x180F)])
        #expect(s16.hex("btcommon.eir_ad.entry.service_data") == ["57"])
        let s32 = AD.block("07 20 0D180000 0102")
        #expect(s32.uints("btcommon.eir_ad.entry.uuid_32") == [0x180D])
        #expect(s32.uuids("adv.uuid") == [BluetoothUUID(uuid16: 0x180D)])
        #expect(s32.hex("btcommon.eir_ad.entry.service_data") == ["0102"])
        let s128 = AD.block("13 21 00112233445566778899AABBCCDDEEFF 0102")
        #expect(s128.uuids("btcommon.eir_ad.entry.custom_uuid_128") == [uuid("FFEEDDCC-BBAA-9988-7766-554433221100")])
        #expect(s128.uuids("adv.uuid") == [uuid("FFEEDDCC-BBAA-9988-7766-554433221100")])
        #expect(s128.hex("btcommon.eir_ad.entry.service_data") == ["0102"])
        // A service UUID without data.
        #expect(!AD.block("03 16 0F18").has("btcommon.eir_ad.entry.service_data"))
        #expect(AD.block("02 16 0F").isMalformed)
    }

    @Test func targetAddresses() {
        for type in ["17", "18"] {
            let s = AD.block("0D \(type) 665544332211 CCBBAA998877")
            #expect(
                s.addresses("btcommon.eir_ad.entry.bd_addr") == [
                    "11:22:33:44:55:66", "77:88:99:AA:BB:CC",
                ]
            )
            #expect(AD.block("05 \(type) 01020304").isMalformed)
        }
    }

    @Test func appearance() {
        let s = AD.block("03 19 4005")
        #expect(s.uints("btcommon.eir_ad.entry.appearance") == [0x0540])
        #expect(s.uints("adv.appearance.category") == [0x15])
        #expect(s.uints("adv.appearance.subcategory") == [0])
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x0540) == "Generic Sensor")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x03C1) == "Keyboard")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x0941) == "Earbud")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x0000) == "Unknown")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x00C2) == "Smartwatch")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x0D48) == "Insulin Pen")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0x0D42) == "Insulin Pump, subcategory 2")
        #expect(AD.name("btcommon.eir_ad.entry.appearance", 0xFFC0) == nil)
        #expect(AD.name("adv.appearance.category", 0x0F) == "Human Interface Device")
        #expect(AD.block("02 19 40").isMalformed)
    }

    @Test func advertisingIntervals() {
        #expect(AD.block("03 1A 2000").uints("btcommon.eir_ad.entry.advertising_interval") == [32])
        #expect(AD.block("04 2F 001000").uints("adv.advertising_interval_long") == [0x1000])
        #expect(AD.block("05 2F 00000100").uints("adv.advertising_interval_long") == [0x01_0000])
        let bad = AD.block("03 2F 0010")
        #expect(bad.isMalformed)
        #expect(bad.hex("btcommon.eir_ad.entry.data") == ["0010"])
    }

    @Test func leDeviceAddress() {
        let s = AD.block("08 1B 665544332211 01")
        #expect(s.addresses("btcommon.eir_ad.entry.bd_addr") == ["11:22:33:44:55:66"])
        #expect(s.uints("btcommon.eir_ad.entry.le_bd_addr.type") == [1])
        #expect(s.uints("btcommon.eir_ad.entry.le_bd_addr.reserved") == [0])
        #expect(AD.name("btcommon.eir_ad.entry.le_bd_addr.type", 1) == "Random")
    }

    @Test func leRole() {
        let s = AD.block("02 1C 02")
        #expect(s.uints("btcommon.eir_ad.entry.le_role") == [2])
        #expect(AD.name("btcommon.eir_ad.entry.le_role", 0) == "Only Peripheral Role supported")
    }

    @Test func uri() {
        let https = AD.block("0F 24 17 2F2F6578616D706C652E636F6D")
        #expect(https.uints("adv.uri.scheme") == [0x17])
        #expect(https.strings("btcommon.eir_ad.entry.uri") == ["https://example.com"])
        #expect(AD.name("adv.uri.scheme", 0x17) == "https:")
        #expect(AD.name("adv.uri.scheme", 0x01) == "(no scheme)")
        #expect(AD.name("adv.uri.scheme", 0xBA) == "ms-settings-cloudstorage:")
        // Code points of 0x80 and up are two UTF-8 octets.
        let itms = AD.block("06 24 C280 2F2F61")
        #expect(itms.uints("adv.uri.scheme") == [0x80])
        #expect(itms.strings("btcommon.eir_ad.entry.uri") == ["itms://a"])
        #expect(AD.block("06 24 01 61626364").strings("btcommon.eir_ad.entry.uri") == ["abcd"])
        #expect(AD.block("03 24 C2 41").isMalformed)
        #expect(AD.block("01 24").isMalformed)
    }

    @Test func indoorPositioning() {
        let s = AD.block("0F 25 3D 78563412 FFFFFFFF F6 16 E803 25")
        #expect(s.uints("btcommon.eir_ad.entry.ips.flags") == [0x3D])
        #expect(s.bools("btcommon.eir_ad.entry.ips.flags.coordinates") == [true])
        #expect(s.uints("btcommon.eir_ad.entry.ips.flags.coordinate_system") == [0])
        #expect(s.bools("btcommon.eir_ad.entry.ips.flags.location_name") == [false])
        #expect(s.ints("btcommon.eir_ad.entry.ips.latitude") == [0x1234_5678])
        #expect(s.ints("btcommon.eir_ad.entry.ips.longitude") == [-1])
        #expect(s.ints("btcommon.eir_ad.entry.ips.tx_power_level") == [-10])
        #expect(s.uints("btcommon.eir_ad.entry.ips.floor_number") == [22])
        #expect(s.uints("btcommon.eir_ad.entry.ips.altitude") == [1000])
        #expect(s.uints("btcommon.eir_ad.entry.ips.uncertainty") == [0x25])
        #expect(s.uints("btcommon.eir_ad.entry.ips.uncertainty.precision") == [2])
        #expect(s.uints("btcommon.eir_ad.entry.ips.uncertainty.update_time") == [2])
        #expect(s.uints("btcommon.eir_ad.entry.ips.uncertainty.stationary") == [1])
        #expect(!s.isMalformed)
        let local = AD.block("06 25 03 0A00 F6FF")
        #expect(local.ints("btcommon.eir_ad.entry.ips.local_north_coordinate") == [10])
        #expect(local.ints("btcommon.eir_ad.entry.ips.local_east_coordinate") == [-10])
        #expect(AD.block("04 25 00 0102").isMalformed)
    }

    @Test func transportDiscoveryData() {
        let s = AD.block("0B 26 01 02 03 AABBCC 01 0C 01 DD")
        #expect(s.uints("btcommon.eir_ad.entry.tds.organization_id") == [1, 1])
        #expect(s.uints("btcommon.eir_ad.entry.tds.flags.role") == [2, 0])
        #expect(s.uints("btcommon.eir_ad.entry.tds.flags.transport_state") == [0, 1])
        #expect(s.bools("btcommon.eir_ad.entry.tds.flags.transport_data_incomplete") == [false, true])
        #expect(s.uints("btcommon.eir_ad.entry.tds.data_length") == [3, 1])
        #expect(s.hex("btcommon.eir_ad.entry.tds.data") == ["aabbcc", "dd"])
        #expect(AD.block("05 26 01 02 05 AA").isMalformed)
    }

    @Test func leSupportedFeatures() {
        let s = AD.block("09 27 FF01000000000000")
        #expect(s.uints("btcommon.eir_ad.entry.le_features") == [0xFF, 1, 0, 0, 0, 0, 0, 0])
        #expect(s.uints("adv.le_feature") == Array(0...8))
        #expect(AD.name("adv.le_feature", 0) == "LE Encryption")
        #expect(AD.name("adv.le_feature", 12) == "LE Extended Advertising")
    }

    @Test func channelMapUpdateIndication() {
        let s = AD.block("08 28 FFFFFFFF1F 1000")
        #expect(s.hex("btcommon.eir_ad.entry.le_channel_map") == ["ffffffff1f"])
        #expect(s.uints("btcommon.eir_ad.entry.instant") == [16])
        #expect(AD.block("06 28 FFFFFFFF1F").isMalformed)
    }

    @Test func pbADV() {
        let open = AD.block("17 29 01020304 00 03 00112233445566778899AABBCCDDEEFF")
        #expect(open.hex("btcommon.eir_ad.entry.mesh_pbadv").count == 1)
        #expect(open.uints("pbadv.linkid") == [0x0102_0304])
        #expect(open.uints("pbadv.trnumber") == [0])
        #expect(open.uints("pbadv.gen_prov.gpcf") == [3])
        #expect(open.uints("pbadv.gen_prov.gpcf.bearer_opcode") == [0])
        #expect(
            open.uuids("pbadv.gen_prov.gpcf.bearer_opcode.device_uuid") == [
                uuid("00112233-4455-6677-8899-AABBCCDDEEFF")
            ]
        )
        let start = AD.block("0C 29 01020304 05 04 0011 AB 0304")
        #expect(start.uints("pbadv.gen_prov.gpcf") == [0])
        #expect(start.uints("pbadv.gen_prov.gpcf.segn") == [1])
        #expect(start.uints("pbadv.gen_prov.gpcf.total_length") == [0x11])
        #expect(start.uints("pbadv.gen_prov.gpcf.fcs") == [0xAB])
        #expect(start.hex("pbadv.gen_prov.gpp.payload") == ["0304"])
        #expect(AD.block("05 29 01020304").isMalformed)
    }

    @Test func meshMessage() {
        let s = AD.block("0A 2A 81 112233445566 7788")
        #expect(s.uints("btmesh.ivi") == [1])
        #expect(s.uints("btmesh.nid") == [1])
        #expect(s.hex("btmesh.obfuscated") == ["112233445566"])
        #expect(s.hex("btmesh.encrypted") == ["7788"])
    }

    @Test func meshBeacon() {
        let secure = AD.block("17 2B 01 02 0102030405060708 00000010 1112131415161718")
        #expect(secure.uints("beacon.type") == [1])
        #expect(secure.bools("beacon.flags.iv_update") == [true])
        #expect(secure.bools("beacon.flags.key_refresh") == [false])
        #expect(secure.hex("beacon.network_id") == ["0102030405060708"])
        #expect(secure.uints("beacon.ivindex") == [16])
        #expect(secure.hex("beacon.authentication_value") == ["1112131415161718"])
        #expect(!secure.isMalformed)
        let unprovisioned = AD.block("14 2B 00 00112233445566778899AABBCCDDEEFF 0801")
        #expect(unprovisioned.uuids("beacon.uuid") == [uuid("00112233-4455-6677-8899-AABBCCDDEEFF")])
        #expect(unprovisioned.uints("beacon.oob") == [0x0801])
        #expect(unprovisioned.bools("beacon.oob.other") == [true])
        #expect(unprovisioned.bools("beacon.oob.on_box") == [true])
        let withHash = AD.block("18 2B 00 00112233445566778899AABBCCDDEEFF 0000 01020304")
        #expect(withHash.hex("beacon.uri_hash") == ["01020304"])
        let privateBeacon = AD.block(
            "1C 2B 02 " + String(repeating: "AA", count: 13) + "0102030405" + "1112131415161718"
        )
        #expect(privateBeacon.hex("beacon.private.obfuscated_data") == ["0102030405"])
        #expect(!privateBeacon.isMalformed)
    }

    @Test func bigInfo() {
        // Values as tshark 4.0 decodes the same octets.
        let s = AD.block("22 2C 00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF00")
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.big_offset") == [4352])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.big_offset_units") == [0])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.iso_interval") == [1604])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.num_bis") == [6])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.nse") == [4])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.bn") == [2])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.sub_interval") == [484_949])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.pto") == [7])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.bis_spacing") == [694_664])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.irc") == [10])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.max_pdu") == [187])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.rfu") == [204])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.seed_access_address") == [0x00FF_EEDD])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.sdu_interval") == [205_329])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.max_sdu") == [1091])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.base_crc_init") == [0x6655])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.channel_map") == [0x1B_AA99_8877])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.phy") == [5])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.bis_payload_count") == [4_293_844_428])
        #expect(s.uints("btcommon.eir_ad.entry.biginfo.framing") == [0])
        #expect(!s.has("btcommon.eir_ad.entry.biginfo.giv"))
        #expect(!s.isMalformed)
        let encrypted = AD.block(
            "3A 2C 00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF00"
                + "0102030405060708" + "00112233445566778899AABBCCDDEEFF"
        )
        #expect(encrypted.hex("btcommon.eir_ad.entry.biginfo.giv") == ["0102030405060708"])
        #expect(encrypted.hex("btcommon.eir_ad.entry.biginfo.gskd") == ["00112233445566778899aabbccddeeff"])
        #expect(AD.block("05 2C 01020304").isMalformed)
    }

    @Test func broadcastCode() {
        #expect(
            AD.block("11 2D 30313233343536373839303132333435").strings("btcommon.eir_ad.entry.broadcast_code")
                == ["0123456789012345"]
        )
        #expect(
            AD.block("11 2D 41424300000000000000000000000000").strings("btcommon.eir_ad.entry.broadcast_code")
                == ["ABC"]
        )
        #expect(AD.block("04 2D 414243").isMalformed)
    }

    @Test func resolvableSetIdentifier() {
        let s = AD.block("07 2E 010203 040506")
        #expect(s.uints("adv.rsi.hash") == [0x03_0201])
        #expect(s.uints("adv.rsi.prand") == [0x06_0504])
    }

    @Test func broadcastName() {
        #expect(AD.block("05 30 54657374").strings("adv.broadcast_name") == ["Test"])
    }

    @Test func encryptedAdvertisingData() {
        let s = AD.block("0E 31 0102030405 AABBCCDD 11223344")
        #expect(s.hex("adv.ead.randomizer") == ["0102030405"])
        #expect(s.hex("adv.ead.payload") == ["aabbccdd"])
        #expect(s.hex("adv.ead.mic") == ["11223344"])
        #expect(AD.block("05 31 01020304").isMalformed)
    }

    @Test func periodicAdvertisingResponseTiming() {
        let s = AD.block("09 32 01020304 05 06 07 08")
        #expect(s.uints("adv.pawr.rsp_aa") == [0x0403_0201])
        #expect(s.uints("adv.pawr.num_subevents") == [5])
        #expect(s.uints("adv.pawr.subevent_interval") == [6])
        #expect(s.uints("adv.pawr.response_slot_delay") == [7])
        #expect(s.uints("adv.pawr.response_slot_spacing") == [8])
    }

    @Test func electronicShelfLabel() {
        let s = AD.block("06 34 0102030405")
        #expect(s.strings("btcommon.eir_ad.entry") == ["Electronic Shelf Label"])
        #expect(s.hex("btcommon.eir_ad.entry.data") == ["0102030405"])
    }

    @Test func threeDInformation() {
        let s = AD.block("03 3D 81 05")
        #expect(s.bools("btcommon.eir_ad.entry.3ds.factory_test_mode") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.3ds.association_notification") == [true])
        #expect(s.bools("btcommon.eir_ad.entry.3ds.battery_level_reporting") == [false])
        #expect(s.uints("btcommon.eir_ad.entry.3ds.path_loss_threshold") == [5])
    }

    @Test func manufacturerSpecificData() {
        let s = AD.block("06 FF FFFF 424C45")
        #expect(s.uints("btcommon.eir_ad.entry.company_id") == [0xFFFF])
        #expect(s.hex("btcommon.eir_ad.entry.data") == ["424c45"])
        #expect(!s.has("data.data"))
        #expect(AD.block("03 FF FFFF").uints("btcommon.eir_ad.entry.company_id") == [0xFFFF])
        #expect(AD.block("02 FF FF").isMalformed)
    }

    @Test func unknownType() {
        let s = AD.block("05 33 01020304")
        #expect(s.uints("btcommon.eir_ad.entry.type") == [0x33])
        #expect(s.strings("btcommon.eir_ad.entry") == ["Unknown"])
        #expect(s.hex("btcommon.eir_ad.entry.data") == ["01020304"])
        #expect(!s.isMalformed)
    }

    @Test func everyAssignedTypeHasANameAndADecoder() {
        let assigned: [UInt64] = [
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x14,
            0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25,
            0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x32, 0x34, 0x3D, 0xFF,
        ]
        for type in assigned {
            #expect(AD.name("btcommon.eir_ad.entry.type", type) != nil, "AD type \(type)")
            #expect(AD.registry.binding(StandardTables.adType, DissectorKey(type)) != nil, "AD type \(type)")
        }
        #expect(AD.name("btcommon.eir_ad.entry.type", 0x2D) == "Broadcast_Code")
        #expect(AD.name("btcommon.eir_ad.entry.type", 0x13) == nil)
    }
}
