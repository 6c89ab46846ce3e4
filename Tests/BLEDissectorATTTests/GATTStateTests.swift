import BLECaptureTestSupport
import BLEDissectorATT
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// Discovery, request/response pairing and value decoding over sequences of PDUs.
@Suite("GATT state")
struct GATTStateTests {
    /// A client (host) discovering a small database on a server (controller side):
    /// GAP 0x0001–0x0005 (Device Name 0x0003, Appearance 0x0005), Battery 0x000e–0x0011
    /// (Battery Level 0x0010, CCCD 0x0011).
    func discovered() -> PDUFeeder {
        let h = Dissect.feeder()
        h.att("02 f7 00")
        h.att("03 05 02", .controllerToHost)
        h.att("10 01 00 ff ff 00 28")
        h.att("11 06 01 00 05 00 00 18 0e 00 11 00 0f 18", .controllerToHost)
        h.att("08 01 00 05 00 03 28")
        h.att("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a", .controllerToHost)
        h.att("08 0e 00 11 00 03 28")
        h.att("09 07 0f 00 12 10 00 19 2a", .controllerToHost)
        h.att("04 11 00 11 00")
        h.att("05 01 11 00 02 29", .controllerToHost)
        return h
    }

    @Test("responses name their request, with the response time")
    func pairing() {
        let h = Dissect.feeder()
        let request = h.att("02 f7 00")
        #expect(request.info == "Sent Exchange MTU Request, Client Rx MTU: 247")
        let response = h.att("03 05 02", .controllerToHost)
        #expect(response.uints("btatt.request_in_frame") == [1])
        #expect(response.uints("gatt.response_time") == [1_000_000])
        #expect(response.uints("gatt.mtu") == [247])
        #expect(response.info == "Rcvd Exchange MTU Response, Server Rx MTU: 517, ATT MTU: 247, response to #1")
        // A second response has no request left.
        let again = h.att("03 05 02", .controllerToHost)
        #expect(!again.has("btatt.request_in_frame"))
    }

    @Test("a response in the same direction as the request is not paired with it")
    func direction() {
        let h = Dissect.feeder()
        h.att("0a 03 00", .hostToController)
        #expect(!h.att("0b 61", .hostToController).has("btatt.request_in_frame"))
        #expect(h.att("0b 61", .controllerToHost).uints("btatt.request_in_frame") == [1])
    }

    @Test("discovery names services, characteristics, values and descriptors")
    func discovery() {
        let h = discovered()
        let read = h.att("0a 10 00")
        #expect(read.info == "Sent Read Request, Handle: 0x0010 (Battery Level)")
        #expect(read.uuids("gatt.uuid") == [BluetoothUUID(uuid16: 0x2A19)])
        #expect(read.uuids("gatt.service_uuid") == [BluetoothUUID(uuid16: 0x180F)])
        let value = h.att("0b 57", .controllerToHost)
        #expect(value.uints("btatt.handle") == [0x10])
        #expect(value.uints("btatt.battery_level") == [87])
        #expect(value.info == "Rcvd Read Response, Handle: 0x0010 (Battery Level), 87%, response to #11")

        let write = h.att("12 11 00 01 00")
        #expect(write.uuids("gatt.uuid") == [BluetoothUUID(uuid16: 0x2902)])
        #expect(write.uuids("gatt.characteristic_uuid") == [BluetoothUUID(uuid16: 0x2A19)])
        #expect(write.uints("btatt.characteristic_configuration_client") == [1])
        #expect(write.uints("btatt.characteristic_configuration_client.notification") == [1])
        #expect(write.uints("btatt.characteristic_configuration_client.indication") == [0])
        #expect(
            write.info
                == "Sent Write Request, Handle: 0x0011 (Battery Level: Client Characteristic Configuration), Notification"
        )
        let written = h.att("13", .controllerToHost)
        #expect(written.uints("btatt.handle") == [0x11])
        #expect(written.uints("btatt.request_in_frame") == [13])

        let notification = h.att("1b 10 00 56", .controllerToHost)
        #expect(notification.info == "Rcvd Handle Value Notification, Handle: 0x0010 (Battery Level), 86%")
        #expect(notification.uints("btatt.battery_level") == [86])

        let name = h.att("0a 03 00")
        #expect(name.strings("gatt.name") == ["Device Name"])
        let nameValue = h.att("0b 62 6c 65 1b 5b", .controllerToHost)
        #expect(nameValue.strings("btatt.device_name") == ["ble\u{1B}["])
        #expect(nameValue.info.contains("\"ble\\x1B[\""), "untrusted text is escaped in the summary: \(nameValue.info)")

        let declaration = h.att("0a 0f 00")
        #expect(declaration.uuids("gatt.uuid") == [BluetoothUUID(uuid16: 0x2803)])
        #expect(declaration.uuids("gatt.characteristic_uuid") == [BluetoothUUID(uuid16: 0x2A19)])
    }

    @Test("summaries follow tshark's form")
    func summaries() {
        let h = Dissect.feeder()
        #expect(h.att("10 01 00 ff ff 00 28").info.hasPrefix("Sent Read By Group Type Request, "))
        #expect(h.att("10 01 00 ff ff 00 28").info.hasSuffix(", Handles: 0x0001..0xffff"))
        let groups = h.att("11 06 01 00 05 00 00 18 0e 00 11 00 0f 18", .controllerToHost)
        #expect(groups.info.hasPrefix("Rcvd Read By Group Type Response, Attribute List Length: 2, "))
    }

    @Test("Find By Type Value discovery names the service")
    func findByTypeValue() {
        let h = Dissect.feeder()
        let request = h.att("06 01 00 ff ff 00 28 0f 18")
        #expect(request.info.hasSuffix(", Handles: 0x0001..0xffff"))
        let response = h.att("07 0e 00 11 00", .controllerToHost)
        #expect(response.uints("btatt.request_in_frame") == [1])
        let read = h.att("0a 0e 00")
        #expect(read.uuids("gatt.service_uuid") == [BluetoothUUID(uuid16: 0x180F)])
        let inService = h.att("0a 10 00")
        #expect(inService.uuids("gatt.service_uuid") == [BluetoothUUID(uuid16: 0x180F)])
    }

    @Test("include declarations")
    func include() {
        let h = Dissect.feeder()
        h.att("08 01 00 10 00 02 28")
        let s = h.att("09 08 05 00 0a 00 0f 00 0f 18", .controllerToHost)
        #expect(!s.isMalformed)
        #expect(s.uints("gatt.included_service_handle") == [0x0A])
        #expect(s.uints("btatt.ending_handle") == [0x0F])
        // The declaration's handle under the requested type, the included service's UUID, and the
        // requested type again at the end, as in Wireshark.
        #expect(s.uints("btatt.uuid16") == [0x2802, 0x180F, 0x2802])
        #expect(h.att("0a 0b 00").uuids("gatt.service_uuid") == [BluetoothUUID(uuid16: 0x180F)])
    }

    @Test("Read By Type on a characteristic UUID learns and decodes the value")
    func readUsingUUID() {
        let h = Dissect.feeder()
        h.att("08 01 00 ff ff 19 2a")
        let s = h.att("09 03 10 00 57", .controllerToHost)
        #expect(s.uints("btatt.battery_level") == [87])
        #expect(h.att("1b 10 00 50", .controllerToHost).uints("btatt.battery_level") == [80])
    }

    @Test("CoreBluetooth's L2CAP PSM characteristic gives the PSM")
    func l2capPSM() {
        let h = Dissect.feeder()
        h.att("08 01 00 ff ff 03 28")
        h.att(
            "09 15 0f 00 02 10 00 3a 55 52 5a a7 55 70 a4 1d 44 fa 28 56 30 dd ab",
            .controllerToHost
        )
        let read = h.att("0a 10 00")
        #expect(read.strings("gatt.name") == ["L2CAP PSM"])
        let s = h.att("0b 85 00", .controllerToHost)
        #expect(s.uints("gatt.l2cap_psm") == [0x85])
        #expect(s.info == "Rcvd Read Response, Handle: 0x0010 (L2CAP PSM), L2CAP PSM: 0x0085, response to #3")
    }

    /// A client that discovered Apple's L2CAP PSM characteristic (value handle 0x0010) and asks
    /// to read it: the next PDU from the server is its value.
    static func psmRead() -> PDUFeeder {
        let h = Dissect.feeder()
        h.att("08 01 00 ff ff 03 28")
        h.att("09 15 0f 00 02 10 00 3a 55 52 5a a7 55 70 a4 1d 44 fa 28 56 30 dd ab", .controllerToHost)
        h.att("0a 10 00")
        return h
    }

    @Test(
        "the L2CAP PSM characteristic in every encoding apps publish it in",
        arguments: [
            ("85 00", 0x85, 1, "L2CAP PSM: 0x0085", false),
            ("00 c1", 0xC1, 2, "L2CAP PSM: 0x00c1 (big-endian uint16)", false),
            ("25 00", 0x25, 1, "L2CAP PSM: 0x0025", true),  // an LE SIG PSM: little-endian, with the warning
            ("00 00", 0x00, 1, "L2CAP PSM: 0x0000", true),  // neither reading is an LE PSM: little-endian
            ("31 32 39", 129, 3, "L2CAP PSM: 0x0081 (ASCII decimal)", false),
            ("31 32 39 0a 00", 129, 3, "L2CAP PSM: 0x0081 (ASCII decimal)", false),
            ("30 78 38 31", 0x81, 4, "L2CAP PSM: 0x0081 (ASCII hex)", false),
            ("7b 22 70 73 6d 22 3a 31 32 39 7d", 129, 5, "L2CAP PSM: 0x0081 (JSON \"psm\")", false),
            ("7b 22 50 53 4d 22 3a 22 31 33 33 22 7d", 133, 5, "L2CAP PSM: 0x0085 (JSON \"PSM\")", false),
            ("7b 22 6e 22 3a 22 63 22 2c 22 70 6f 72 74 22 3a 31 39 35 7d", 195, 5, "(JSON \"port\")", false),
            ("7b 22 70 73 6d 22 3a 37 30 30 30 30 7d", nil, 0, "", false),  // {"psm":70000}: no PSM
            ("7b 22 61 22 3a 31 2c 22 62 22 3a 32 7d", nil, 0, "", false),  // two integers, neither named psm
            ("68 65 6c 6c 6f", nil, 0, "", false),  // "hello"
            ("81", nil, 0, "", false),  // one byte that is no digit
        ] as [(String, Int?, Int, String, Bool)]
    )
    func psmEncodings(value: String, psm: Int?, encoding: Int, info: String, warned: Bool) {
        let s = Self.psmRead().att("0b " + value, .controllerToHost)
        guard let psm else {
            // No encoding fits: malformed inside the value, and no PSM made up.
            #expect(s.isMalformed)
            #expect(!s.has("gatt.l2cap_psm"))
            #expect(s.uints("btatt.handle") == [0x10])
            return
        }
        #expect(!s.isMalformed, "\(s.expertMessages)")
        #expect(s.uints("gatt.l2cap_psm") == [UInt64(psm)])
        #expect(s.uints("gatt.l2cap_psm.encoding") == [UInt64(encoding)])
        #expect(s.info.contains(info), "\(s.info)")
        #expect(s.expertMessages.contains { $0.contains("outside the LE dynamic range") } == warned)
    }

    @Test("every prefix of a JSON PSM value is malformed or decodes, never a PSM made up from part of it")
    func psmPrefixes() {
        let value = Array(#"{"psm":129}"#.utf8)
        for n in 1...value.count {
            let h = Self.psmRead()
            let hex = value.prefix(n).map { String(format: "%02x", $0) }.joined(separator: " ")
            let s = h.att("0b " + hex, .controllerToHost)
            switch n {
            case 2:
                // Two bytes that no reading makes an LE PSM: Apple's little-endian, with the warning.
                #expect(s.uints("gatt.l2cap_psm") == [0x227B])
                #expect(s.expertMessages.contains { $0.contains("outside the LE dynamic range") })
            case value.count:
                #expect(s.uints("gatt.l2cap_psm") == [129])
            default:
                #expect(s.isMalformed, "\(n) bytes")
                #expect(!s.has("gatt.l2cap_psm"), "\(n) bytes")
            }
        }
        // Nesting past what a PSM needs is not parsed.
        let h = Self.psmRead()
        let deep = Array(#"{"a":[[[[[1]]]]],"psm":129}"#.utf8).map { String(format: "%02x", $0) }
        #expect(h.att("0b " + deep.joined(separator: " "), .controllerToHost).isMalformed)
    }

    @Test(
        "well-known values decode",
        arguments: [
            ("2a01", "40 05", "btatt.appearance", [0x0540] as [UInt64], "Generic Sensor"),
            ("2a04", "06 00 0c 00 00 00 90 01", "btatt.maximum_connection_interval", [12], "Interval: 6–12"),
            ("2a05", "01 00 ff ff", "btatt.ending_handle", [0xFFFF], "Changed: Handles: 0x0001..0xffff"),
            ("2a50", "01 5d 00 01 02 03 04", "btatt.pnp_id.product_id", [0x0201], "Vendor 0x005d"),
            ("2a07", "fc", "btatt.tx_power_level", [UInt64(bitPattern: -4)], "-4 dBm"),
            ("2a29", "41 43 4d 45", "btatt.manufacturer_string", [], "\"ACME\""),
        ] as [(String, String, String, [UInt64], String)]
    )
    func values(uuid: String, value: String, field: String, expected: [UInt64], info: String) {
        let h = Dissect.feeder()
        let u = Hex.bytes(uuid)
        h.att("08 01 00 ff ff 03 28")
        h.att(String(format: "09 07 0f 00 12 10 00 %02x %02x", u[1], u[0]), .controllerToHost)
        let s = h.att("1b 10 00 " + value, .controllerToHost)
        #expect(!s.isMalformed, "\(s.expertMessages)")
        if !expected.isEmpty { #expect(s.uints(field) == expected) }
        #expect(s.has(field))
        #expect(s.info.contains(info), "\(s.info)")
    }

    @Test("a value that does not fit its characteristic is malformed inside the value")
    func badValue() {
        let h = discovered()
        let s = h.att("1b 10 00 56 57", .controllerToHost)
        #expect(s.isMalformed)
        #expect(s.uints("btatt.battery_level") == [86])
        #expect(s.uints("btatt.handle") == [0x10])
    }

    @Test("a Service Changed indication forgets the handles in its range, and is confirmed")
    func serviceChanged() {
        let h = discovered()
        h.att("08 06 00 0d 00 03 28")
        h.att("09 07 07 00 20 08 00 05 2a", .controllerToHost)
        #expect(h.att("0a 10 00").has("gatt.uuid"))
        let indication = h.att("1d 08 00 0e 00 11 00", .controllerToHost)
        #expect(indication.expertMessages.contains { $0.contains("forgotten") })
        let confirmation = h.att("1e")
        #expect(confirmation.uints("btatt.request_in_frame") == [UInt64(indication.frame.number)])
        #expect(confirmation.uints("btatt.handle") == [8])
        #expect(!h.att("0a 10 00").has("gatt.uuid"))
        #expect(h.att("0a 03 00").has("gatt.uuid"))
    }

    @Test("state is per connection and dropped at disconnection")
    func perConnection() {
        let h = discovered()
        #expect(!h.att("0a 10 00", connection: 0x41).has("gatt.uuid"))
        #expect(h.att("0a 10 00").has("gatt.uuid"))
        h.close(0x40)
        #expect(!h.att("0a 10 00").has("gatt.uuid"))
    }

    @Test("EATT shares the connection's database, with its own pending requests")
    func eatt() {
        let h = discovered()
        let read = h.att("0a 10 00", eatt: true)
        #expect(read.uuids("gatt.uuid") == [BluetoothUUID(uuid16: 0x2A19)])
        // A response on the unenhanced bearer does not answer the EATT request.
        #expect(!h.att("0b 57", .controllerToHost).has("btatt.request_in_frame"))
        #expect(
            h.att("0b 57", .controllerToHost, eatt: true).uints("btatt.request_in_frame") == [UInt64(read.frame.number)]
        )
    }

    @Test("a PDU longer than the agreed ATT_MTU gets a warning")
    func mtu() {
        let h = Dissect.feeder()
        h.att("02 17 00")
        h.att("03 17 00", .controllerToHost)
        let big = h.att("1b 10 00 " + String(repeating: "00 ", count: 21), .controllerToHost)
        #expect(big.expertMessages.contains { $0.contains("exceeds the ATT_MTU of 23") })
        let fits = h.att("1b 10 00 " + String(repeating: "00 ", count: 20), .controllerToHost)
        #expect(fits.expertMessages.isEmpty)
        h.att("0a 03 00")
        let full = h.att("0b " + String(repeating: "41 ", count: 22), .controllerToHost)
        #expect(full.expertMessages.contains { $0.contains("may be longer") })
    }

    @Test("a second request before the first one's answer is noted; commands and the other side are not")
    func sequential() {
        let h = Dissect.feeder()
        #expect(h.att("0a 03 00").expertMessages.isEmpty)
        #expect(h.att("52 03 00 01").expertMessages.isEmpty)
        #expect(h.att("0a 03 00", .controllerToHost).expertMessages.isEmpty)
        #expect(h.att("1d 10 00 01", .hostToController).expertMessages.isEmpty)
        let second = h.att("0a 05 00")
        #expect(
            second.expertMessages == [
                "Request sent while #1 has no answer yet: ATT allows one at a time, so that answer is missing"
            ]
        )
        // The missing answer is given up: the next response answers the newer request.
        #expect(h.att("0b 00", .controllerToHost).uints("btatt.request_in_frame") == [5])
        // On EATT several channels may each have a request outstanding.
        h.att("0a 03 00", eatt: true)
        #expect(h.att("0a 05 00", eatt: true).expertMessages.isEmpty)
        #expect(h.att("02 00 02", eatt: true).expertMessages.contains { $0.contains("not allowed on an enhanced") })
    }

    @Test("pending requests are bounded, with a note")
    func pendingBound() {
        let h = Dissect.feeder()
        var notes: [String] = []
        // On EATT, where several requests may be outstanding (on the unenhanced bearer a new
        // request replaces one whose answer is missing).
        for _ in 0..<17 { notes += h.att("0a 03 00", eatt: true).expertMessages.filter { $0.contains("waiting") } }
        #expect(notes.count == 1)
        #expect(notes.first?.contains("#1") == true)
        // The oldest remembered is #2.
        #expect(h.att("0b 00", .controllerToHost, eatt: true).uints("btatt.request_in_frame") == [2])
    }

    @Test("the handle tables are bounded at 4096 handles, with one note each")
    func handleBound() {
        let h = Dissect.feeder()
        h.att("04 01 00 ff ff")
        var notes: [String] = []
        var handle = 1
        // 5 responses of 1024 descriptors each would be 4096 bytes; send many small ones.
        while handle < 4200 {
            var hex = "05 01"
            for k in 0..<100 {
                let v = handle + k
                hex += String(format: " %02x %02x 01 29", v & 0xFF, v >> 8)
            }
            notes += h.att(hex, .controllerToHost).expertMessages
            handle += 100
        }
        // The connection's GATT table and Wireshark's record of the controller's handles.
        #expect(notes.count == 2, "\(notes)")
        #expect(notes.filter { $0.contains("GATT table") && $0.contains("4096") }.count == 1, "\(notes)")
        #expect(notes.filter { $0.contains("4096 handles are recorded") }.count == 1, "\(notes)")
        let learned = h.att("0a 00 10")  // 0x1000 = 4096 learned
        #expect(learned.has("gatt.uuid"))
        #expect(learned.uints("btatt.uuid16") == [0x2901])
        let past = h.att("0a 01 10")  // 0x1001 is past the limit
        #expect(!past.has("gatt.uuid"))
        #expect(!past.has("btatt.uuid16"))
    }

    @Test("Read Multiple Variable names each value from its request")
    func readMultipleVariable() {
        let h = discovered()
        h.att("20 03 00 10 00")
        let s = h.att("21 03 00 61 62 63 01 00 57", .controllerToHost)
        #expect(s.uints("btatt.handle") == [3, 0x10])
        #expect(s.strings("btatt.device_name") == ["abc"])
        #expect(s.uints("btatt.battery_level") == [87])
        #expect(s.uints("btatt.request_in_frame") == [11])
        // A last value cut by the MTU is a note, not damage.
        h.att("20 03 00 10 00")
        let cut = h.att("21 05 00 61 62", .controllerToHost)
        #expect(!cut.isMalformed)
        #expect(cut.expertMessages.contains { $0.contains("cut") })
    }

    @Test("Prepare Write Response must echo the request")
    func prepareEcho() {
        let h = Dissect.feeder()
        h.att("16 17 00 00 00 61 62")
        let s = h.att("17 17 00 02 00 61 62", .controllerToHost)
        #expect(s.expertMessages.contains { $0.contains("echo") })
        #expect(s.uints("btatt.request_in_frame") == [1])
    }
}
