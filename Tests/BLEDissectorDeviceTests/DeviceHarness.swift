import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore

@testable import BLEDissectorDevice

/// Builds a capture frame by frame from spec layouts (all multi-byte fields little-endian), for
/// the synthetic scenarios. Frames are numbered from 1 in the order they are added.
struct Script {
    private(set) var frames: [CapturedFrame] = []

    /// The number the next frame gets.
    var next: Int { frames.count + 1 }

    @discardableResult
    mutating func add(_ kind: FrameKind, _ bytes: [UInt8], direction: Direction? = nil, controller: UInt16 = 0) -> Int {
        let number = frames.count + 1
        let dir = direction ?? (kind == .hciEvent ? .controllerToHost : .hostToController)
        frames.append(
            CapturedFrame(
                number: number,
                timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
                direction: dir,
                controllerIndex: controller,
                kind: kind,
                bytes: bytes,
                originalLength: bytes.count,
                sourceOffset: 0
            )
        )
        return number
    }

    /// An HCI event: code, parameter length, parameters.
    @discardableResult
    mutating func event(_ code: UInt8, _ params: [UInt8], controller: UInt16 = 0) -> Int {
        add(.hciEvent, [code, UInt8(params.count)] + params, controller: controller)
    }

    /// An LE Meta event.
    @discardableResult
    mutating func leMeta(_ subevent: UInt8, _ params: [UInt8], controller: UInt16 = 0) -> Int {
        event(0x3E, [subevent] + params, controller: controller)
    }

    /// An HCI command: opcode, parameter length, parameters.
    @discardableResult
    mutating func command(_ opcode: UInt16, _ params: [UInt8]) -> Int {
        add(.hciCommand, le16(opcode) + [UInt8(params.count)] + params)
    }

    /// One ACL packet holding a whole L2CAP PDU on `cid`.
    @discardableResult
    mutating func l2cap(
        handle: UInt16,
        cid: UInt16,
        _ payload: [UInt8],
        received: Bool = true,
        controller: UInt16 = 0
    ) -> Int {
        let pdu = le16(UInt16(payload.count)) + le16(cid) + payload
        let acl = le16(handle | 0x2000) + le16(UInt16(pdu.count)) + pdu
        return add(.aclData, acl, direction: received ? .controllerToHost : .hostToController, controller: controller)
    }

    // MARK: Common events

    /// LE Connection Complete (subevent 0x01).
    @discardableResult
    mutating func leConnectionComplete(
        status: UInt8 = 0,
        handle: UInt16,
        peerType: UInt8 = 1,
        peer: String,
        controller: UInt16 = 0
    ) -> Int {
        leMeta(
            0x01,
            [status] + le16(handle) + [0x00, peerType] + addr(peer) + le16(24) + le16(0) + le16(72) + [0],
            controller: controller
        )
    }

    /// LE Enhanced Connection Complete (subevent 0x0A).
    @discardableResult
    mutating func leEnhancedConnectionComplete(
        status: UInt8 = 0,
        handle: UInt16,
        peerType: UInt8,
        peer: String,
        peerRPA: String = "00:00:00:00:00:00"
    ) -> Int {
        leMeta(
            0x0A,
            [status] + le16(handle) + [0x00, peerType] + addr(peer) + addr("00:00:00:00:00:00") + addr(peerRPA)
                + le16(24) + le16(0) + le16(72) + [0]
        )
    }

    /// Disconnection Complete (0x05).
    @discardableResult
    mutating func disconnectionComplete(status: UInt8 = 0, handle: UInt16, controller: UInt16 = 0) -> Int {
        event(0x05, [status] + le16(handle) + [0x13], controller: controller)
    }

    /// Number Of Completed Packets (0x13), one packet per handle.
    @discardableResult
    mutating func completedPackets(_ handles: [UInt16]) -> Int {
        event(0x13, [UInt8(handles.count)] + handles.flatMap { le16($0) + le16(1) })
    }

    /// LE Advertising Report (subevent 0x02) with the given reports, each laid out whole as the
    /// HCI module reads them.
    @discardableResult
    mutating func advertisingReports(_ reports: [[UInt8]]) -> Int {
        leMeta(0x02, [UInt8(reports.count)] + reports.flatMap { $0 })
    }
}

/// One legacy advertising report: event type, address type, address, data, RSSI.
func report(type: UInt8 = 0x00, addressType: UInt8 = 1, _ address: String, _ data: [UInt8] = []) -> [UInt8] {
    [type, addressType] + addr(address) + [UInt8(data.count)] + data + [0xC4]
}

/// An AD structure of a local name: Complete (0x09) or Shortened (0x08).
func nameAD(_ name: String, complete: Bool = true) -> [UInt8] {
    let bytes = Array(name.utf8)
    return [UInt8(bytes.count + 1), complete ? 0x09 : 0x08] + bytes
}

/// Flags AD structure.
let flagsAD: [UInt8] = [0x02, 0x01, 0x06]

func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

/// An address in HCI byte order (least significant byte first) from "AA:BB:CC:DD:EE:FF".
func addr(_ text: String) -> [UInt8] {
    guard let a = BDAddr(text) else { return [0, 0, 0, 0, 0, 0] }
    return (0..<6).map { UInt8(truncatingIfNeeded: a.rawValue >> (8 * UInt64($0))) }
}

/// Reading the device fields of dissected frames.
extension FrameSnapshot {
    /// The `device.addr` values, upper case.
    var deviceAddresses: [String] { addresses("device.addr") }
    var deviceNames: [String] { strings("device.name") }
    var identityAddresses: [String] { addresses("device.identity_addr") }
    var deviceCount: Int { values("device").count }

    func belongs(to address: String) -> Bool { deviceAddresses.contains(address.uppercased()) }
}

extension Array where Element == FrameSnapshot {
    /// Numbers of the frames with a `device.addr` equal to `address`.
    func frames(of address: String) -> [Int] { filter { $0.belongs(to: address) }.map(\.frame.number) }

    /// Numbers of the frames with a `device.name` equal to `name`.
    func frames(named name: String) -> [Int] { filter { $0.deviceNames.contains(name) }.map(\.frame.number) }

    /// Numbers of the frames with any `device` node.
    var framesWithDevices: [Int] { filter { $0.deviceCount > 0 }.map(\.frame.number) }

    /// The snapshot of frame `number` (1-based).
    func frame(_ number: Int) -> FrameSnapshot? { first { $0.frame.number == number } }
}

/// Frame numbers from ranges and single numbers: `numbers(29, 31...98, 100)`.
func numbers(_ parts: any FrameNumbers...) -> [Int] { parts.flatMap { $0.frameNumbers } }

protocol FrameNumbers {
    var frameNumbers: [Int] { get }
}

extension Int: FrameNumbers {
    var frameNumbers: [Int] { [self] }
}

extension ClosedRange<Int>: FrameNumbers {
    var frameNumbers: [Int] { Array(self) }
}

/// Dissects `frames` with a fresh engine whose device table holds at most `maximumDevices`.
func dissect(_ frames: [CapturedFrame], maximumDevices: Int) -> [FrameSnapshot] {
    let registry = Dissect.registry()
    var engine = DissectionEngine(registry: registry)
    _ = engine.state.module(DeviceState.self) { DeviceState(maximumDevices: maximumDevices) }
    return frames.map { frame in
        engine.dissect(frame, wantsInfo: true) { tree in
            FrameSnapshot(frame: frame, tree: tree, registry: registry)
        }
    }
}
