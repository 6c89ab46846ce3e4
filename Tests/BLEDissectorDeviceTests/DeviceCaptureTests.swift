import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The project's own captures (captures/README.md): the central C0:DE:C0:DE:00:01 scans for,
/// connects to and pairs with the peripheral C0:DE:C0:DE:00:02 ("bleinspect" in its adverts,
/// "bleinspect-periph" as its GATT Device Name). Every capture holds the central's HCI traffic, so
/// the only remote device is the peripheral, on connection handle 0x0001.
///
/// The expected lists were made by hand from `bleinspect read FILE` (one line per frame) and
/// checked with tshark, which has no device fields, by the filter
/// `bthci_acl.chandle == 0x0001 || bthci_evt.connection_handle == 0x0001 ||
///  bthci_cmd.connection_handle == 0x0001 || bthci_cmd.bd_addr == c0:de:c0:de:00:02 ||
///  bthci_evt.bd_addr == c0:de:c0:de:00:02`
/// (each capture has one connection, so "handle 0x0001" is "the peripheral's connection"). The
/// frames it leaves out are the initialisation, the Command Status events (which name neither
/// handle nor address) and the LE Set Random Address of the central's own address.
@Suite("device tracking: project captures")
struct DeviceCaptureTests {
    static let peripheral = "C0:DE:C0:DE:00:02"
    static let central = "C0:DE:C0:DE:00:01"

    func capture(_ name: String) -> [FrameSnapshot] {
        Dissect.capture(TestPaths.projectCapture(name))
    }

    @Test("gatt-discovery: LE Create Connection, the connection, and the GATT Device Name")
    func gattDiscovery() throws {
        let snaps = capture("gatt-discovery.btsnoop")
        try #require(snaps.count == 100)
        // 29 LE Create Connection (its target); 30 Command Status: no; 31 LE Connection Complete;
        // 32–97 ATT over handle 0x0001 and Number Of Completed Packets; 98 Disconnect; 99 Command
        // Status: no; 100 Disconnection Complete.
        #expect(snaps.frames(of: Self.peripheral) == numbers(29, 31...98, 100))
        #expect(snaps.framesWithDevices == numbers(29, 31...98, 100))
        // 85 is the Read Response with the Device Name "bleinspect-periph" (tshark:
        // `-Y btatt.device_name` → 85); the name applies from there on.
        #expect(snaps.frames(named: "bleinspect-periph") == numbers(85...98, 100))
        #expect(snaps.frame(84)?.deviceNames == [])
        // The connection handle on every frame of the connection, not on the LE Create Connection.
        #expect(snaps.filter { $0.has("device.connection") }.map(\.frame.number) == numbers(31...98, 100))
        #expect(snaps.allSatisfy { $0.uints("device.first_seen").allSatisfy { $0 == 29 } })
        #expect(snaps.frame(31)?.uints("device.addr_type") == [1])
        #expect(snaps.frames(of: Self.central) == [])
    }

    @Test("gatt-discovery in PacketLogger and pcapng: the same frames, shifted by the note record")
    func otherFormats() {
        // The .pklg files have a text note first (frame 1), so every packet is one frame later.
        for name in ["gatt-discovery-be.pklg", "gatt-discovery-le.pklg"] {
            let snaps = capture(name)
            #expect(snaps.frames(of: Self.peripheral) == numbers(30, 32...99, 101), "\(name)")
            #expect(snaps.frames(named: "bleinspect-periph") == numbers(86...99, 101), "\(name)")
        }
        let pcapng = capture("gatt-discovery.pcapng")
        #expect(pcapng.frames(of: Self.peripheral) == numbers(29, 31...98, 100))
    }

    @Test("adv-scan: the 8 advertising reports, named from the first ADV_IND")
    func advScan() {
        let snaps = capture("adv-scan.btsnoop")
        // 33–40 are the reports (ADV_IND at 33, 35, 37, 39 with the Complete Local Name
        // "bleinspect"; SCAN_RSP at 34, 36, 38, 40 without one). 29–32 and 41–42 are scan
        // commands and their Command Complete.
        #expect(snaps.frames(of: Self.peripheral) == numbers(33...40))
        #expect(snaps.framesWithDevices == numbers(33...40))
        #expect(snaps.frames(named: "bleinspect") == numbers(33...40))
        #expect(snaps.allSatisfy { $0.uints("device.first_seen").allSatisfy { $0 == 33 } })
        #expect(snaps.allSatisfy { !$0.has("device.connection") })
    }

    @Test("adv-extended: the 4 extended reports")
    func advExtended() {
        let snaps = capture("adv-extended.btsnoop")
        #expect(snaps.frames(of: Self.peripheral) == numbers(33...36))
        #expect(snaps.frames(named: "bleinspect extended advertiser") == numbers(33...36))
    }

    @Test("le-coc: every frame of the connection, credit-based channel included")
    func leCoc() {
        let snaps = capture("le-coc.btsnoop")
        // By the tshark filter in the suite's comment: 29, 31–321, 323 (293 frames); 30 and 322
        // are the Command Status events of LE Create Connection and Disconnect.
        #expect(snaps.frames(of: Self.peripheral) == numbers(29, 31...321, 323))
        #expect(snaps.framesWithDevices == numbers(29, 31...321, 323))
        // The K-frames of the channel are part of it.
        let kframes = snaps.filter { $0.has("btl2cap.le_sdu_length") || $0.has("coc.sender") }.map(\.frame.number)
        #expect(!kframes.isEmpty)
        #expect(kframes.allSatisfy { snaps.frame($0)?.belongs(to: Self.peripheral) == true })
    }

    @Test("smp-pairing: identity address from the peer's Identity Address Information (frame 53)")
    func smpPairing() {
        let snaps = capture("smp-pairing.btsnoop")
        // 50 and 62 are Command Status. 53 is the peripheral's Identity Address Information
        // (received; tshark: btsmp.bd_addr == c0:de:c0:de:00:02, hci_h4.direction == 0x01); 56 is
        // the central's own (sent), which must not be taken as the peer's.
        #expect(snaps.frames(of: Self.peripheral) == numbers(29, 31...49, 51...61, 63))
        let withIdentity = snaps.filter { $0.identityAddresses == [Self.peripheral] }.map(\.frame.number)
        #expect(withIdentity == numbers(53...61, 63))
        // The identity is the address in use (static random): one device.addr.
        #expect(snaps.frame(53)?.deviceAddresses == [Self.peripheral])
        #expect(snaps.frames(of: Self.central) == [])
        #expect(snaps.allSatisfy { !$0.identityAddresses.contains(Self.central) })
    }

    @Test("smp-legacy-pairing: identity address from frame 47")
    func smpLegacyPairing() {
        let snaps = capture("smp-legacy-pairing.btsnoop")
        // tshark: `-Y btsmp.opcode == 9` → 47 (received, 00:02) and 52 (sent, 00:01).
        #expect(snaps.frames(of: Self.peripheral) == numbers(29, 31...41, 43...59, 61))
        let withIdentity = snaps.filter { $0.identityAddresses == [Self.peripheral] }.map(\.frame.number)
        #expect(withIdentity == numbers(47...59, 61))
        #expect(snaps.frames(of: Self.central) == [])
    }

    @Test("the device nodes come after the frame's own layers and leave the rest of the tree alone")
    func treeShape() throws {
        let snaps = capture("gatt-discovery.btsnoop")
        let f = try #require(snaps.frame(85))
        let registry = f.registry
        let device = try #require(registry.field(named: "device"))
        let first = try #require(f.nodes.firstIndex { $0.field == device })
        #expect(f.nodes[first].depth == 0)
        #expect(f.nodes[first...].dropFirst().allSatisfy { $0.depth == 1 })
        #expect(f.nodes.count - first - 1 == 5)  // addr, addr_type, name, connection, first_seen
        // Its bytes are the ACL header's connection handle.
        #expect(f.nodes[first].range == 0..<2)
        #expect(f.has("btatt.device_name"))
    }
}
