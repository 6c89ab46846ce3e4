import BLECaptureTestSupport
import BLEDissectorATT
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// How a capture reaches the ATT dissectors: through the test's own ACL/L2CAP stand-in
/// (`MiniStack`), or through the real HCI and L2CAP modules once they hand data up.
enum Pipeline: String, Sendable, CustomStringConvertible {
    case mini, full

    var description: String { rawValue }

    func dissect(_ path: String) -> [FrameSnapshot] {
        switch self {
        case .mini: MiniStack.dissect(path, registry: Dissect.registry())
        case .full: Dissect.capture(path)
        }
    }
}

/// The GATT session of captures/gatt-discovery (README: "gatt-discovery.btsnoop: GATT client session").
enum GATTDiscovery {
    static let files = [
        "gatt-discovery.btsnoop", "gatt-discovery-be.pklg", "gatt-discovery-le.pklg", "gatt-discovery.pcapng",
    ]

    /// The opcode counts the capture README gives.
    static let opcodeCounts: [UInt64: Int] = [
        0x01: 6, 0x02: 1, 0x03: 1, 0x04: 4, 0x05: 4, 0x08: 10, 0x09: 5, 0x0A: 2, 0x0B: 2, 0x10: 3, 0x11: 2, 0x12: 1,
        0x13: 1, 0x1B: 3,
    ]

    static func check(_ frames: [FrameSnapshot], _ file: String) {
        let att = frames.filter { $0.has("btatt") }
        #expect(att.count == 45, "\(file)")
        var counts: [UInt64: Int] = [:]
        for s in att { for op in s.uints("btatt.opcode") { counts[op, default: 0] += 1 } }
        #expect(counts == opcodeCounts, "\(file)")
        #expect(!att.contains { $0.isMalformed }, "\(file)")
        #expect(att.allSatisfy { $0.expertMessages.isEmpty }, "\(file)")

        // Every response and confirmation names its request.
        for s in att {
            let op = s.uints("btatt.opcode").first ?? 0
            if [0x01, 0x03, 0x05, 0x09, 0x0B, 0x11, 0x13].contains(op) {
                #expect(s.uints("btatt.request_in_frame").count == 1, "\(file) #\(s.frame.number): \(s.info)")
                #expect(s.info.contains("response to #"), "\(s.info)")
            }
        }
        // MTU 247 agreed.
        #expect(att.flatMap { $0.uints("gatt.mtu") } == [247])

        // Read of the Device Name.
        let names = att.flatMap { $0.strings("btatt.device_name") }
        #expect(names == ["bleinspect-periph"], "\(file)")
        let nameResponse = att.first { $0.has("btatt.device_name") }
        #expect(nameResponse?.info.hasPrefix("Rcvd Read Response, Handle: 0x0003 (Device Name)") == true)

        // Battery Level: read 87, then notified 86, 85, 84.
        let levels = att.flatMap { $0.uints("btatt.battery_level") }
        #expect(levels == [87, 86, 85, 84], "\(file)")
        let battery = BluetoothUUID(uuid16: 0x2A19)
        let notifications = att.filter { $0.uints("btatt.opcode") == [0x1B] }
        #expect(notifications.count == 3)
        for (s, level) in zip(notifications, [86, 85, 84]) {
            #expect(s.uuids("gatt.uuid") == [battery])
            #expect(s.strings("gatt.name") == ["Battery Level"])
            #expect(s.uuids("gatt.service_uuid") == [BluetoothUUID(uuid16: 0x180F)])
            #expect(s.info == "Rcvd Handle Value Notification, Handle: 0x0010 (Battery Level), \(level)%")
        }
        let read = att.first { $0.uints("btatt.battery_level") == [87] }
        #expect(read?.info.hasPrefix("Rcvd Read Response, Handle: 0x0010 (Battery Level), 87%, response to #") == true)

        // The CCCD write enables notifications of Battery Level.
        let write = att.first { $0.uints("btatt.opcode") == [0x12] }
        #expect(write?.uints("btatt.handle") == [0x0011])
        #expect(write?.uuids("gatt.uuid") == [BluetoothUUID(uuid16: 0x2902)])
        #expect(write?.uuids("gatt.characteristic_uuid") == [battery])
        #expect(write?.uints("btatt.characteristic_configuration_client.notification") == [1])
        #expect(
            write?.info
                == "Sent Write Request, Handle: 0x0011 (Battery Level: Client Characteristic Configuration), Notification"
        )

        // Discovery: every service and characteristic found.
        // Each Read By Group Type Response ends with the requested type, as in Wireshark.
        let groupResponses = att.filter { $0.uints("btatt.opcode") == [0x11] }
        #expect(groupResponses.allSatisfy { $0.uints("btatt.uuid16").last == 0x2800 })
        let services = groupResponses.flatMap { $0.uints("btatt.uuid16").dropLast() }
        #expect(services == [0x1800, 0x1801, 0x180F, 0x180A])
        let characteristics = att.flatMap { s in
            s.uints("btatt.opcode") == [0x09] ? s.uints("btatt.characteristic_value_handle") : []
        }
        #expect(characteristics == [0x03, 0x05, 0x08, 0x0B, 0x0D, 0x10, 0x14, 0x17])
        let custom = att.flatMap { s in s.uints("btatt.opcode") == [0x11] ? s.uuids("btatt.uuid128") : [] }
        #expect(custom.map(\.canonical) == ["B1E15EC7-0000-4000-8000-000000000001"])
        let userDescription = att.last { $0.uints("btatt.opcode") == [0x05] && $0.uints("btatt.handle") == [0x18] }
        #expect(
            userDescription?.uuids("gatt.characteristic_uuid").map(\.canonical) == [
                "B1E15EC7-0001-4000-8000-000000000001"
            ]
        )
    }

    /// What must be the same whatever the file format: per ATT PDU, its fields (frame numbers
    /// differ: the PacketLogger files start with a note).
    static func fingerprint(_ frames: [FrameSnapshot]) -> [String] {
        frames.filter { $0.has("btatt") }.map { s in
            let first = frames.first { $0.has("btatt") }?.frame.number ?? 0
            let info = s.info.replacingOccurrences(of: #"#\d+"#, with: "#", options: .regularExpression)
            return [
                s.hex("btatt.opcode", digits: 2).joined(separator: ","),
                s.hex("btatt.handle", digits: 4).joined(separator: ","),
                s.uuids("gatt.uuid").map(\.description).joined(separator: ","),
                s.uints("btatt.request_in_frame").map { String(Int($0) - first) }.joined(separator: ","),
                s.uints("gatt.response_time").map(String.init).joined(separator: ","),
                info,
            ].joined(separator: " | ")
        }
    }
}

@Suite("ATT on the project's captures")
struct ATTCaptureTests {
    @Test("gatt-discovery: discovery names every handle (ACL stand-in)", arguments: GATTDiscovery.files)
    func discoveryMini(_ file: String) {
        GATTDiscovery.check(Pipeline.mini.dissect(TestPaths.projectCapture(file)), file)
    }

    @Test(
        "gatt-discovery: discovery names every handle (full pipeline)",
        .enabled(if: Dissect.lowerLayersPresent),
        arguments: GATTDiscovery.files
    )
    func discoveryFull(_ file: String) {
        GATTDiscovery.check(Pipeline.full.dissect(TestPaths.projectCapture(file)), file)
    }

    @Test("gatt-discovery gives the same results from btsnoop, both PacketLogger forms and pcapng")
    func twins() {
        let reference = GATTDiscovery.fingerprint(
            Pipeline.mini.dissect(TestPaths.projectCapture(GATTDiscovery.files[0]))
        )
        #expect(reference.count == 45)
        for file in GATTDiscovery.files.dropFirst() {
            #expect(
                GATTDiscovery.fingerprint(Pipeline.mini.dissect(TestPaths.projectCapture(file))) == reference,
                "\(file)"
            )
        }
    }

    static func checkPSM(_ frames: [FrameSnapshot]) {
        let psm = frames.filter { $0.has("gatt.l2cap_psm") }
        #expect(psm.count == 1)
        #expect(psm.first?.uints("gatt.l2cap_psm") == [0x0085])
        #expect(psm.first?.uints("btatt.handle") == [0x0010])
        #expect(
            psm.first?.info.contains("Handle: 0x0010 (L2CAP PSM), L2CAP PSM: 0x0085") == true,
            "\(psm.first?.info ?? "")"
        )
        // The service was found with Find By Type Value, the characteristic with Read By Type.
        #expect(frames.contains { $0.uints("btatt.opcode") == [0x07] && $0.has("btatt.request_in_frame") })
        let read = frames.first { $0.uints("btatt.opcode") == [0x0A] }
        #expect(read?.uuids("gatt.service_uuid").map(\.canonical) == ["B1E15EC7-0000-4000-8000-00000000C0C0"])
        #expect(!frames.contains { $0.has("btatt") && $0.isMalformed })
    }

    @Test("le-coc: the PSM characteristic read gives PSM 0x0085 (ACL stand-in)")
    func psmMini() {
        Self.checkPSM(Pipeline.mini.dissect(TestPaths.projectCapture("le-coc.btsnoop")))
    }

    @Test(
        "le-coc: the PSM characteristic read gives PSM 0x0085 (full pipeline)",
        .enabled(if: Dissect.lowerLayersPresent)
    )
    func psmFull() {
        Self.checkPSM(Pipeline.full.dissect(TestPaths.projectCapture("le-coc.btsnoop")))
    }
}
