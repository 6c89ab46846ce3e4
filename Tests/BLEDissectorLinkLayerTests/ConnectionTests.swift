import BLECapture
import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// A connection built packet by packet (`SyntheticConnection.scenario`): what the link layer
/// makes of CONNECT_IND, L2CAP fragments, acknowledgements, retransmissions, a bad CRC and
/// encryption, and what `gatt` and `conns` make of the result.
@Suite("link-layer connections")
struct ConnectionTests {
    let frames: [FrameSnapshot]
    let path: String

    init() throws {
        let scenario = SyntheticConnection.scenario()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ll-synthetic-\(UUID().uuidString).pcap"
        )
        try Data(scenario.pcap).write(to: url)
        path = url.path
        frames = Dissect.capture(path)
    }

    @Test func connectIndicationStartsTheConnection() throws {
        let f = try #require(frames.first)
        #expect(f.uints("btle.advertising_header.pdu_type") == [5])
        #expect(f.uints("btle.link_layer_data.access_address") == [UInt64(SyntheticConnection.accessAddress)])
        #expect(f.uints("btle.link_layer_data.crc_init") == [UInt64(SyntheticConnection.crcInit)])
        #expect(f.uints("btle.link_layer_data.interval") == [40])
        #expect(f.uints("btle.link_layer_data.timeout") == [400])
        #expect(f.uints("btle.link_layer_data.hop") == [5])
        #expect(f.addresses("btle.initiator_address") == ["C6:55:44:33:22:11"])
        #expect(f.addresses("btle.advertising_address") == ["06:05:04:03:02:01"])
        #expect(f.bools("ll.crc_valid") == [true])
        #expect(f.uints("ll.connection") == [1])
    }

    @Test func everyGoodDataPacketIsInTheConnection() {
        for f in frames.dropFirst() where f.bools("ll.crc_valid") == [true] {
            #expect(f.uints("ll.connection") == [1], "frame \(f.frame.number)")
            #expect(f.addresses("btle.master_bd_addr") == ["C6:55:44:33:22:11"], "frame \(f.frame.number)")
            #expect(f.addresses("btle.slave_bd_addr") == ["06:05:04:03:02:01"], "frame \(f.frame.number)")
            #expect(f.uints("btle.connection_parameters_in") == [1], "frame \(f.frame.number)")
        }
    }

    /// Without a sniffer's word, the central sends first in each event and the two take turns.
    @Test func sendersInferredFromTiming() {
        for f in frames.dropFirst() {
            let expected: UInt64 = f.frame.number % 2 == 0 ? 1 : 2
            #expect(f.uints("ll.sender") == [expected], "frame \(f.frame.number)")
            #expect(f.bools("ll.sender_inferred") == [true], "frame \(f.frame.number)")
        }
    }

    @Test func l2capReassembledFromFragments() throws {
        #expect(frames[1].uints("btatt.opcode").isEmpty)
        #expect(frames[1].info.contains("start, 6 of 11 bytes"))
        let f = frames[3]
        #expect(f.uints("btatt.opcode") == [0x10])
        #expect(f.uints("btle.l2cap.fragment.count") == [2])
        #expect(f.uints("btle.l2cap.reassembled.length") == [11])
        #expect(f.uints("btl2cap.cid") == [4])
        #expect(frames[6].uints("btatt.opcode") == [0x11])
        #expect(frames[6].frame.number == 7)
    }

    @Test func retransmissionIsMarkedAndNotPassedOn() {
        let f = frames[8]
        #expect(f.bools("ll.retransmission") == [true])
        #expect(f.uints("btatt.opcode").isEmpty)
        #expect(f.info.contains("Retransmission of frame 7"))
        // The peripheral's empty PDUs after an acknowledged packet are not retransmissions.
        #expect(!frames[4].has("ll.retransmission"))
    }

    @Test func badCRCIsMarkedAndNeverReassembled() {
        let bad = frames[9]
        #expect(bad.bools("ll.crc_valid") == [false])
        #expect(bad.warnings.contains { $0.hasPrefix("Bad CRC") })
        #expect(!bad.has("btl2cap.cid"))
        let next = frames[11]
        #expect(next.warnings.contains { $0.contains("without a start fragment") })
        #expect(!next.has("btatt.opcode"))
    }

    @Test func encryptionFollowsTheProcedure() {
        #expect(frames[13].uints("btle.control_opcode") == [0x03])
        #expect(frames[14].uints("btle.control_opcode") == [0x04])
        #expect(frames[16].uints("btle.control_opcode") == [0x05])
        for i in 17...19 {
            #expect(frames[i].bools("ll.encrypted") == [true], "frame \(i + 1)")
            #expect(!frames[i].has("btle.control_opcode"), "frame \(i + 1)")
            #expect(!frames[i].has("btatt.opcode"), "frame \(i + 1)")
            #expect(frames[i].uints("ll.mic").count == 1, "frame \(i + 1)")
        }
    }

    /// tshark decodes the same file: the frames both decode agree on the ATT and control opcodes,
    /// and tshark finds the CONNECT_IND's CRC good too (it checks no data-channel CRCs in this
    /// link type).
    @Test(.enabled(if: Run.tshark != nil)) func tsharkAgrees() throws {
        let rows = try Run.tsharkFields(
            path,
            ["btatt.opcode", "btle.control_opcode", "btle.crc.incorrect", "btle.link_layer_data.crc_init"]
        )
        #expect(rows.count == frames.count)
        #expect(rows.first?[2] == "")
        #expect(rows.first?[3] == "0x123456")
        var compared = 0
        for (f, row) in zip(frames, rows) where row.count == 4 {
            let ours = f.hex("btatt.opcode", digits: 2).joined(separator: ",")
            if !ours.isEmpty {
                #expect(ours == row[0], "frame \(f.frame.number)")
                compared += 1
            }
            let control = f.hex("btle.control_opcode", digits: 2).joined(separator: ",")
            if !control.isEmpty { #expect(control == row[1], "frame \(f.frame.number)") }
        }
        #expect(compared == 2)
    }

    @Test func gattViewShowsTheService() throws {
        let result = try Run.bleinspect(["gatt", path])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("Device 06:05:04:03:02:01"))
        #expect(result.stdoutText.contains("0x0001–0x0005  Primary Service 0x1800 Generic Access"))
    }

    @Test func connsViewShowsTheSniffedConnection() throws {
        let result = try Run.bleinspect(["conns", "--json", path])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let list = try #require(json["connections"] as? [[String: Any]])
        let c = try #require(list.first)
        #expect(list.count == 1)
        #expect(c["sniffed"] as? Bool == true)
        #expect(c["central_address"] as? String == "c6:55:44:33:22:11")
        #expect(c["access_address"] as? Int == Int(SyntheticConnection.accessAddress))
        let peer = try #require(c["peer"] as? [String: Any])
        #expect(peer["address"] as? String == "06:05:04:03:02:01")
        let parameters = try #require(c["parameters"] as? [[String: Any]])
        #expect(parameters.first?["interval_us"] as? Int == 50_000)
        #expect(parameters.first?["supervision_timeout_ms"] as? Int == 4_000)
        let encryption = try #require(c["encryption"] as? [[String: Any]])
        #expect(encryption.count == 1)
    }
}
