import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

@testable import BLEDissectorDevice

/// Synthetic captures built from the spec's layouts, one behaviour each.
@Suite("device tracking: scenarios")
struct DeviceScenarioTests {
    let a = "11:22:33:44:55:01"
    let b = "11:22:33:44:55:02"
    let c = "11:22:33:44:55:03"

    @Test("the device fields are registered with their types")
    func registered() throws {
        let registry = Dissect.registry()
        let expected: [(String, String)] = [
            ("device", "protocol"), ("device.addr", "bdaddr"), ("device.addr_type", "uint8"),
            ("device.identity_addr", "bdaddr"), ("device.name", "string"), ("device.connection", "uint16"),
            ("device.first_seen", "uint32"), ("device.irk_source", "string"),
        ]
        for (name, type) in expected {
            let id = try #require(registry.field(named: name), "\(name) is not registered")
            #expect(registry.descriptor(id).kind.typeName == type, "\(name)")
            #expect(!registry.descriptor(id).help.isEmpty || name == "device", "\(name) has no help text")
        }
        #expect(registry.shortNames[Int(try #require(registry.field(named: "device")).rawValue)] == "DEVICE")
        #expect(registry.postDissectors.contains { $0.owner == "device" })
    }

    @Test("an advertising event with three reports from three devices has three device nodes")
    func severalReports() throws {
        var s = Script()
        s.advertisingReports([
            report(a, flagsAD + nameAD("Alpha")),
            report(type: 0x04, b, nameAD("Bra", complete: false)),
            report(addressType: 0, c, flagsAD),
        ])
        let snaps = Dissect.frames(s.frames)
        let f = try #require(snaps.first)
        #expect(f.deviceCount == 3)
        #expect(f.deviceAddresses == [a, b, c].map { $0.uppercased() })
        #expect(f.deviceNames == ["Alpha", "Bra"])
        #expect(f.uints("device.addr_type") == [1, 1, 0])
        #expect(f.uints("device.first_seen") == [1, 1, 1])
        // Each name sits in its own device's node: the node after "device" holds its fields.
        let names = nodesByDevice(f, "device.name")
        #expect(names == [["Alpha"], ["Bra"], []])
        #expect(!f.has("device.connection"))
    }

    @Test("two reports from one device in one event give one device node")
    func sameDeviceTwice() throws {
        var s = Script()
        s.advertisingReports([report(a, nameAD("Alpha")), report(type: 0x04, a, [])])
        let f = try #require(Dissect.frames(s.frames).first)
        #expect(f.deviceCount == 1)
        #expect(f.deviceAddresses == [a.uppercased()])
    }

    @Test("extended reports: anonymous advertisers belong to nobody")
    func extendedAnonymous() throws {
        var s = Script()
        func ext(_ addressType: UInt8, _ address: String, _ data: [UInt8]) -> [UInt8] {
            le16(0x0013) + [addressType] + addr(address) + [1, 0, 0xFF, 0x7F, 0xC4] + le16(0) + [0]
                + addr("00:00:00:00:00:00") + [UInt8(data.count)] + data
        }
        s.leMeta(0x0D, [2] + ext(0xFF, "00:00:00:00:00:00", []) + ext(0x01, a, nameAD("Ext")))
        let f = try #require(Dissect.frames(s.frames).first)
        #expect(f.deviceAddresses == [a.uppercased()])
        #expect(f.deviceNames == ["Ext"])
    }

    @Test("a connection belongs to its peer from connection complete to disconnection complete")
    func connectionLifetime() {
        var s = Script()
        s.leConnectionComplete(status: 0x3E, handle: 0x0040, peer: a)  // 1: failed: nobody's
        s.completedPackets([0x0040])  // 2: no connection yet
        s.leConnectionComplete(handle: 0x0040, peer: a)  // 3
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x02, 0xF7, 0x00], received: false)  // 4: ATT MTU
        s.completedPackets([0x0040])  // 5
        s.l2cap(handle: 0x0041, cid: 0x0004, [0x03, 0x00, 0x02])  // 6: another handle: nobody's
        s.command(0x0406, le16(0x0040) + [0x13])  // 7: Disconnect
        s.event(0x0F, [0x00, 0x01] + le16(0x0406))  // 8: Command Status: not attributed
        s.disconnectionComplete(handle: 0x0040)  // 9: still the connection's
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x03, 0x00, 0x02])  // 10: after it: nobody's
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: a) == [3, 4, 5, 7, 9])
        #expect(snaps.framesWithDevices == [3, 4, 5, 7, 9])
        #expect(snaps.frame(4)?.uints("device.connection") == [0x0040])
        #expect(snaps.frame(9)?.uints("device.connection") == [0x0040])
        #expect(snaps.frame(3)?.uints("device.first_seen") == [3])
    }

    @Test("a handle reused after a disconnection belongs to the new peer")
    func reusedHandle() {
        var s = Script()
        s.leConnectionComplete(handle: 0x0040, peer: a)  // 1
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x0A, 0x03, 0x00])  // 2
        s.disconnectionComplete(handle: 0x0040)  // 3
        s.leConnectionComplete(handle: 0x0040, peer: b)  // 4
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x0A, 0x03, 0x00])  // 5
        s.completedPackets([0x0040])  // 6
        s.leConnectionComplete(handle: 0x0040, peer: c)  // 7: reused without a disconnection
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x0A, 0x03, 0x00])  // 8
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: a) == [1, 2, 3])
        #expect(snaps.frames(of: b) == [4, 5, 6])
        #expect(snaps.frames(of: c) == [7, 8])
    }

    @Test("connections are per controller")
    func perController() {
        var s = Script()
        s.leConnectionComplete(handle: 0x0001, peer: a, controller: 0)
        s.leConnectionComplete(handle: 0x0001, peer: b, controller: 1)
        s.l2cap(handle: 0x0001, cid: 0x0004, [0x0A, 0x03, 0x00], controller: 1)
        s.l2cap(handle: 0x0001, cid: 0x0004, [0x0A, 0x03, 0x00], controller: 0)
        s.disconnectionComplete(handle: 0x0001, controller: 1)
        s.l2cap(handle: 0x0001, cid: 0x0004, [0x0A, 0x03, 0x00], controller: 0)
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: a) == [1, 4, 6])
        #expect(snaps.frames(of: b) == [2, 3, 5])
    }

    @Test("Number Of Completed Packets naming two connections belongs to both devices")
    func completedPacketsForTwo() throws {
        var s = Script()
        s.leConnectionComplete(handle: 0x0040, peer: a)
        s.leConnectionComplete(handle: 0x0041, peer: b)
        s.completedPackets([0x0041, 0x0040, 0x0041])
        let f = try #require(Dissect.frames(s.frames).last)
        #expect(f.deviceAddresses == [b, a].map { $0.uppercased() })
        #expect(f.uints("device.connection") == [0x0041, 0x0040])
    }

    @Test("LE Create Connection belongs to its target; LE Set Random Address to nobody")
    func commands() {
        var s = Script()
        s.command(0x2005, addr(c))  // 1: LE Set Random Address (local)
        let create =
            le16(0x60) + le16(0x60) + [0x00, 0x01] + addr(a) + [0x01] + le16(12) + le16(24) + le16(0) + le16(72)
            + le16(0) + le16(0)
        s.command(0x200D, create)  // 2
        s.command(0x0419, addr(b) + [0x01, 0x00] + le16(0))  // 3: Remote Name Request
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: c) == [])
        #expect(snaps.frames(of: a) == [2])
        #expect(snaps.frame(2)?.uints("device.addr_type") == [1])
        #expect(snaps.frames(of: b) == [3])
        #expect(snaps.frame(3)?.uints("device.addr_type") == [0])
    }

    @Test("names: shortened < complete < GATT Device Name; learned from that frame on")
    func namePrecedence() {
        var s = Script()
        s.advertisingReports([report(a, [])])  // 1: no name yet
        s.advertisingReports([report(a, nameAD("Pol", complete: false))])  // 2
        s.advertisingReports([report(a, nameAD("Polar H10"))])  // 3
        s.advertisingReports([report(a, nameAD("Pol", complete: false))])  // 4: worse: kept
        s.leConnectionComplete(handle: 0x0040, peer: a)  // 5
        // Read By Type Request for Device Name (0x2A00), then its response from the peer.
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x08] + le16(1) + le16(0xFFFF) + le16(0x2A00), received: false)  // 6
        let value = Array("Polar H10 A1B2C3D4".utf8)
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x09, UInt8(2 + value.count)] + le16(0x0003) + value)  // 7
        s.advertisingReports([report(a, nameAD("Polar H10"))])  // 8: complete after GATT: kept
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frame(1)?.deviceNames == [])
        #expect(snaps.frame(2)?.deviceNames == ["Pol"])
        #expect(snaps.frame(3)?.deviceNames == ["Polar H10"])
        #expect(snaps.frame(4)?.deviceNames == ["Polar H10"])
        #expect(snaps.frame(7)?.has("btatt.device_name") == true)
        #expect(snaps.frame(6)?.deviceNames == ["Polar H10"])
        #expect(snaps.frame(7)?.deviceNames == ["Polar H10 A1B2C3D4"])
        #expect(snaps.frame(8)?.deviceNames == ["Polar H10 A1B2C3D4"])
        #expect(snaps.frames(of: a) == Array(1...8))
    }

    @Test("a Device Name the local host sends is the local device's, not the peer's")
    func localNameIgnored() {
        var s = Script()
        s.leConnectionComplete(handle: 0x0040, peer: a)
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x08] + le16(1) + le16(0xFFFF) + le16(0x2A00))  // peer asks
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x09, 7] + le16(0x0003) + Array("Local".utf8), received: false)
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frame(3)?.has("btatt.device_name") == true)
        #expect(snaps.frame(3)?.deviceNames == [])
    }

    @Test("BR/EDR: Connection Complete, Remote Name Request Complete and the ACL link")
    func classic() {
        var s = Script()
        s.event(0x04, addr(a) + [0x0C, 0x02, 0x5A, 0x01])  // 1: Connection Request
        s.event(0x03, [0x00] + le16(0x000B) + addr(a) + [0x01, 0x00])  // 2: Connection Complete (ACL)
        var name = Array("Headset".utf8)
        name += [UInt8](repeating: 0, count: 248 - name.count)
        s.event(0x07, [0x00] + addr(a) + name)  // 3: Remote Name Request Complete
        s.l2cap(handle: 0x000B, cid: 0x0001, [0x0A, 0x01, 0x02, 0x00, 0x02, 0x00])  // 4: signalling
        s.disconnectionComplete(handle: 0x000B)  // 5
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: a) == [1, 2, 3, 4, 5])
        #expect(snaps.frames(named: "Headset") == [3, 4, 5])
        #expect(snaps.frame(2)?.uints("device.addr_type") == [0])
    }

    @Test("periodic advertising reports belong to the advertiser through the sync handle")
    func periodic() {
        var s = Script()
        let established = [0x00] + le16(0x0007) + [0x03, 0x01] + addr(a) + [0x01] + le16(80) + [0x00]
        s.leMeta(0x0F, le16(0x0007) + [0x7F, 0xC4, 0xFF, 0x00, 0x00])  // 1: unknown sync
        s.leMeta(0x0E, established)  // 2
        s.leMeta(0x0F, le16(0x0007) + [0x7F, 0xC4, 0xFF, 0x00] + [UInt8(nameAD("Per").count)] + nameAD("Per"))  // 3
        s.leMeta(0x10, le16(0x0007))  // 4: Sync Lost: still the advertiser's
        s.leMeta(0x0F, le16(0x0007) + [0x7F, 0xC4, 0xFF, 0x00, 0x00])  // 5: after it: nobody's
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frames(of: a) == [2, 3, 4])
    }

    @Test("RPA linked to the identity by LE Enhanced Connection Complete: both addresses from then on")
    func enhancedConnectionCompleteLinks() throws {
        let rpa = "4A:11:22:33:44:55"
        let identity = "C0:00:00:00:00:0A"
        let otherRPA = "5B:11:22:33:44:66"
        var s = Script()
        s.advertisingReports([report(rpa, nameAD("Watch"))])  // 1: the RPA alone
        s.leEnhancedConnectionComplete(handle: 0x0040, peerType: 0x03, peer: identity, peerRPA: rpa)  // 2
        s.l2cap(handle: 0x0040, cid: 0x0004, [0x0A, 0x03, 0x00], received: false)  // 3
        s.disconnectionComplete(handle: 0x0040)  // 4
        s.advertisingReports([report(rpa, [])])  // 5: the RPA again: linked
        s.advertisingReports([report(otherRPA, [])])  // 6: a new RPA: not linked (no IRK known)
        // 7: the controller resolves the new RPA to the same identity
        s.leEnhancedConnectionComplete(handle: 0x0041, peerType: 0x03, peer: identity, peerRPA: otherRPA)
        let snaps = Dissect.frames(s.frames)
        let one = try #require(snaps.frame(1))
        #expect(one.deviceAddresses == [rpa])
        #expect(one.identityAddresses == [])
        for n in [2, 3, 4, 5] {
            let f = try #require(snaps.frame(n))
            #expect(f.deviceAddresses == [rpa, identity], "frame \(n)")
            #expect(f.identityAddresses == [identity], "frame \(n)")
            #expect(f.uints("device.addr_type") == [1, 1], "frame \(n)")
            #expect(f.deviceNames == ["Watch"], "frame \(n)")
            #expect(f.uints("device.first_seen") == [1], "frame \(n)")
            #expect(f.deviceCount == 1, "frame \(n)")
        }
        #expect(snaps.frame(6)?.deviceAddresses == [otherRPA])
        #expect(snaps.frame(6)?.deviceNames == [])
        // Resolved by the controller: the name learned under the first RPA comes with the identity.
        #expect(snaps.frame(7)?.deviceAddresses == [otherRPA, identity])
        #expect(snaps.frame(7)?.deviceNames == ["Watch"])
        #expect(snaps.frame(7)?.uints("device.first_seen") == [1])
        #expect(snaps.frames(of: identity) == [2, 3, 4, 5, 7])
        #expect(snaps.frames(of: rpa) == [1, 2, 3, 4, 5])
    }

    @Test("RPA linked by SMP Identity Address Information received on the connection")
    func smpIdentityLinks() throws {
        let rpa = "4A:11:22:33:44:55"
        let identity = "00:1B:DC:00:00:01"
        let local = "C0:DE:C0:DE:00:01"
        var s = Script()
        s.leConnectionComplete(handle: 0x0040, peerType: 0x01, peer: rpa)  // 1
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x09, 0x01] + addr(local), received: false)  // 2: ours: ignored
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x09, 0x00] + addr(identity))  // 3: the peer's
        s.completedPackets([0x0040])  // 4
        s.disconnectionComplete(handle: 0x0040)  // 5
        s.advertisingReports([report(addressType: 0, identity, [])])  // 6: the identity itself
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.frame(1)?.deviceAddresses == [rpa])
        #expect(snaps.frame(2)?.deviceAddresses == [rpa])
        #expect(snaps.frame(2)?.identityAddresses == [])
        for n in [3, 4, 5] {
            let f = try #require(snaps.frame(n))
            #expect(f.deviceAddresses == [rpa, identity], "frame \(n)")
            #expect(f.uints("device.addr_type") == [1, 0], "frame \(n)")
            #expect(f.identityAddresses == [identity], "frame \(n)")
        }
        #expect(snaps.frame(6)?.deviceAddresses == [identity])
        // First seen under its RPA, in frame 1.
        #expect(snaps.frame(6)?.uints("device.first_seen") == [1])
        #expect(snaps.frames(of: local) == [])
    }

    @Test("a report the controller resolved (address type 2 or 3) carries an identity address")
    func resolvedReport() throws {
        var s = Script()
        s.advertisingReports([report(addressType: 0x03, a, []), report(addressType: 0x02, b, [])])
        let f = try #require(Dissect.frames(s.frames).first)
        #expect(f.deviceAddresses == [a, b].map { $0.uppercased() })
        #expect(f.identityAddresses == [a, b].map { $0.uppercased() })
        #expect(f.uints("device.addr_type") == [1, 0])
    }

    @Test("an identity address that is the connection's own address gives one device.addr")
    func identityIsTheAddress() throws {
        let peer = "C0:DE:C0:DE:00:02"
        var s = Script()
        s.leConnectionComplete(handle: 0x0001, peer: peer)
        s.l2cap(handle: 0x0001, cid: 0x0006, [0x09, 0x01] + addr(peer))
        let f = try #require(Dissect.frames(s.frames).last)
        #expect(f.deviceAddresses == [peer])
        #expect(f.identityAddresses == [peer])
    }

    @Test("the device table is capped; the least recently seen device is forgotten, with one note")
    func cap() throws {
        let addresses = (1...6).map { "11:22:33:44:55:0\($0)" }
        var s = Script()
        s.advertisingReports([report(addresses[0], nameAD("First"))])  // 1
        s.advertisingReports([report(addresses[1], [])])  // 2
        s.advertisingReports([report(addresses[2], [])])  // 3
        s.advertisingReports([report(addresses[3], [])])  // 4: the table (4) is full
        s.advertisingReports([report(addresses[0], [])])  // 5: the first is the newest again
        s.advertisingReports([report(addresses[4], [])])  // 6: forgets the second (least recent)
        s.advertisingReports([report(addresses[5], [])])  // 7: forgets the third
        s.advertisingReports([report(addresses[0], [])])  // 8: still known
        s.advertisingReports([report(addresses[1], [])])  // 9: forgotten: seen anew
        let snaps = dissect(s.frames, maximumDevices: 4)
        #expect(snaps.frame(8)?.uints("device.first_seen") == [1])
        #expect(snaps.frame(8)?.deviceNames == ["First"])
        #expect(snaps.frame(9)?.uints("device.first_seen") == [9])
        let notes = snaps.map { $0.expertMessages.filter { $0.contains("Device table full") }.count }
        #expect(notes == [0, 0, 0, 0, 0, 1, 0, 0, 0])
        // Every frame still carries its device.
        #expect(snaps.allSatisfy { $0.deviceCount == 1 })
    }

    @Test("the device table stays flat under a flood of new addresses")
    func flatUnderFlood() {
        var table = DeviceTable(capacity: 1000)
        for i in 0..<50_000 {
            let (slot, _) = table.touch(BDAddr(rawValue: 0x4000_0000_0000 | UInt64(i)), type: 1, frame: i)
            if i % 7 == 0 { table.learn(name: "n\(i)", rank: NameRank.complete, slot: slot) }
        }
        #expect(table.count == 1000)
        #expect(table.records.count == 1000)
        #expect(table.evictions == 49_000)
        // The most recent 1000, newest first.
        let order = table.addressesByRecency().map { Int($0.rawValue & 0xFFFF_FFFF) }
        #expect(order == Array((49_000..<50_000).reversed()))
    }

    @Test("the LRU order follows use")
    func lruOrder() {
        var table = DeviceTable(capacity: 3)
        let x = BDAddr(rawValue: 1)
        let y = BDAddr(rawValue: 2)
        let z = BDAddr(rawValue: 3)
        let w = BDAddr(rawValue: 4)
        _ = table.touch(x, type: 0, frame: 1)
        _ = table.touch(y, type: 0, frame: 2)
        _ = table.touch(z, type: 0, frame: 3)
        _ = table.touch(x, type: 0, frame: 4)
        #expect(table.addressesByRecency() == [x, z, y])
        let (_, evicted) = table.touch(w, type: 0, frame: 5)
        #expect(evicted == y)
        #expect(table.addressesByRecency() == [w, x, z])
        #expect(table.slot(of: y) == nil)
    }

    @Test("frames with no device get no device node and no note")
    func nothingElse() {
        var s = Script()
        s.command(0x0C03, [])  // Reset
        s.event(0x0E, [0x01] + le16(0x1009) + [0x00] + addr(a))  // Read BD_ADDR: the local address
        s.add(.note, Array("hello".utf8))
        let snaps = Dissect.frames(s.frames)
        #expect(snaps.framesWithDevices == [])
        #expect(snaps.allSatisfy { $0.expertMessages.isEmpty })
    }

    @Test("every prefix of every scenario frame is truncated and leaves depth 0; nothing traps")
    func prefixes() {
        var s = Script()
        s.advertisingReports([report(a, flagsAD + nameAD("Alpha")), report(b, nameAD("B", complete: false))])
        s.leConnectionComplete(handle: 0x0040, peer: a)
        s.leEnhancedConnectionComplete(handle: 0x0041, peerType: 0x02, peer: b, peerRPA: c)
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x09, 0x00] + addr(b))
        s.completedPackets([0x0040, 0x0041])
        s.disconnectionComplete(handle: 0x0040)
        let registry = Dissect.registry()
        var engine = DissectionEngine(registry: registry)
        for frame in s.frames {
            expectEveryPrefix(of: frame.bytes, "frame \(frame.number)") { bytes in
                var cut = frame
                cut.bytes = bytes
                cut.originalLength = bytes.count
                return engine.dissect(cut, wantsInfo: true) { FrameSnapshot(frame: cut, tree: $0, registry: registry) }
            }
        }
    }

    /// The values of `field` inside each `device` node, node by node.
    private func nodesByDevice(_ f: FrameSnapshot, _ field: String) -> [[String]] {
        let registry = f.registry
        guard let device = registry.field(named: "device"), let id = registry.field(named: field) else { return [] }
        var out: [[String]] = []
        for node in f.nodes {
            if node.field == device {
                out.append([])
            } else if node.field == id, !out.isEmpty, case .string(let ref) = node.value {
                out[out.count - 1].append(f.text(ref))
            }
        }
        return out
    }
}
