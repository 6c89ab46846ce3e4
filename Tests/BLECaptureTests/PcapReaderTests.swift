import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

@Suite("pcap reader")
struct PcapReaderTests {
    typealias B = CaptureBytes
    let dir = TemporaryDirectory()

    @Test("link type 201: direction pseudo-header and H4 type; snaplen truncation is visible")
    func h4WithDirection() {
        let bytes =
            B.pcapHeader(linkType: 201)
            + B.pcapRecord([0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00], seconds: 100, micros: 7)
            + B.pcapRecord([0, 0, 0, 1, 0x02, 0x40, 0x20], seconds: 101, micros: 8, originalLength: 40)
        let (frames, error, format) = CaptureFiles.readAll(dir.write(bytes, to: "x.pcapng"))  // name lies: content wins
        #expect(error == nil)
        #expect(format?.container == .pcap)
        #expect(format?.linkType == 201)
        #expect(frames.map(\.kind) == [.hciCommand, .aclData])
        #expect(frames.map(\.direction) == [.hostToController, .controllerToHost])
        #expect(frames[0].bytes == [0x03, 0x0C, 0x00])
        #expect(frames[0].timestamp == Timestamp(seconds: 100, nanoseconds: 7000, precision: .microseconds))
        #expect(frames[1].originalLength == 35)
        #expect(frames[1].isTruncated)
    }

    @Test("link type 254: monitor header gives controller, kind and direction")
    func linuxMonitor() {
        let bytes =
            B.pcapHeader(linkType: 254)
            + B.pcapRecord([0, 3, 0, 5, 0x40, 0x20, 0, 0], seconds: 1, micros: 0)
            + B.pcapRecord([0xFF, 0xFF, 0, 12] + Array("note".utf8), seconds: 1, micros: 0)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "mon.pcap"))
        #expect(error == nil)
        #expect(frames.map(\.kind) == [.aclData, .note])
        #expect(frames.map(\.controllerIndex) == [3, nil])
        #expect(frames[0].direction == .controllerToHost)
        #expect(frames[0].bytes == [0x40, 0x20, 0, 0])
    }

    @Test("sniffer link types are handed on whole as link-layer frames", arguments: [251, 256, 272, 192])
    func linkLayer(linkType: Int) {
        let payload: [UInt8] = [0xD6, 0xBE, 0x89, 0x8E, 0x00, 0x03, 0x01, 0x02, 0x03]
        let bytes = B.pcapHeader(linkType: UInt32(linkType)) + B.pcapRecord(payload, seconds: 1, micros: 2)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "ll.pcap"))
        #expect(error == nil)
        #expect(frames.first?.kind == .linkLayer(linkType: UInt16(linkType)))
        #expect(frames.first?.bytes == payload)
    }

    @Test("a link type that is not Bluetooth is refused by name")
    func unsupportedLinkType() {
        let bytes = B.pcapHeader(linkType: 1) + B.pcapRecord([1, 2, 3], seconds: 1, micros: 2)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "eth.pcap"))
        #expect(frames.isEmpty)
        #expect(error?.code == .unsupported)
        #expect(error?.description.contains("EN10MB") == true)
        #expect(error?.isDamage == true)
    }

    @Test("a truncated last pcap record is damage at its frame and offset")
    func truncated() {
        let first = B.pcapRecord([0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00], seconds: 1, micros: 0)
        let second = B.pcapRecord([0, 0, 0, 0, 0x01, 0x03, 0x0C, 0x00], seconds: 2, micros: 0)
        let bytes = B.pcapHeader(linkType: 201) + first + second.dropLast(3)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "cut.pcap"))
        #expect(frames.count == 1)
        #expect(error?.code == .truncated)
        #expect(error?.frame == 2)
        #expect(error?.offset == Int64(24 + first.count))
    }

    @Test("unreadable inputs: missing, directory, empty; unknown content is bad magic")
    func unreadable() {
        let missing = CaptureFiles.readAll(dir.path("does-not-exist.pcap"))
        #expect(missing.error?.code == .unreadable)
        #expect(missing.error?.isDamage == false)
        let directory = CaptureFiles.readAll(dir.url.path)
        #expect(directory.error?.code == .unreadable)
        #expect(directory.error?.description.contains("directory") == true)
        let empty = CaptureFiles.readAll(dir.write([], to: "empty.pcap"))
        #expect(empty.error?.code == .empty)
        let junk = CaptureFiles.readAll(dir.write(Array("hello, this is not a capture".utf8), to: "junk.pcap"))
        #expect(junk.error?.code == .badMagic)
        #expect(junk.error?.offset == 0)
    }
}
