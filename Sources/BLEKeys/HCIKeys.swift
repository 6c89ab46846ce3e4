import BLECrypto
public import BLEInspectCore

/// Long term keys an HCI log carries in the clear (Core Vol 4 Part E 7.8.24, 7.8.25, 7.7.65.5):
/// LE Enable Encryption, where the central's host gives the controller the LTK with its EDIV and
/// Rand, and LE Long Term Key Request Reply, where the peripheral's host answers the LE Long Term
/// Key Request event (which carries the EDIV and Rand) with the LTK. The peer is the address of
/// the LE (Enhanced) Connection Complete event on the same handle, when the log has it.
public struct HCIKeyScanner {
    private struct Link: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    /// What names the source of each key (the capture's path).
    public let source: String
    public private(set) var keys: [LongTermKey] = []
    private var peers: [Link: BDAddr] = [:]
    private var requests: [Link: (ediv: UInt16, rand: UInt64)] = [:]

    public init(source: String) { self.source = source }

    /// Reads one frame: HCI commands and LE meta events; others are skipped.
    public mutating func add(_ frame: CapturedFrame) {
        let b = frame.bytes
        let controller = frame.controllerIndex ?? 0
        func link(_ at: Int) -> Link { Link(controller: controller, handle: UInt16(le(b, at, 2) & 0x0FFF)) }
        func key(_ at: Int, ediv: UInt16?, rand: UInt64?, at l: Link) -> LongTermKey? {
            guard b.count >= at + 16, let value = try? Value128(lsoFirst: Array(b[at..<(at + 16)])) else { return nil }
            let origin = "\(source), frame \(frame.number)"
            return LongTermKey(
                peer: peers[l],
                key: value,
                ediv: ediv,
                rand: rand,
                source: KeySource(file: origin, line: 0)
            )
        }
        switch frame.kind {
        case .hciCommand where b.count >= 5:
            let opcode = UInt16(le(b, 0, 2))
            let l = link(3)
            if opcode == 0x2019, b.count >= 31 {  // LE Enable Encryption: handle, Rand, EDIV, LTK
                append(key(15, ediv: UInt16(le(b, 13, 2)), rand: le(b, 5, 8), at: l))
            } else if opcode == 0x201A, b.count >= 21 {  // LE Long Term Key Request Reply: handle, LTK
                let request = requests[l]
                append(key(5, ediv: request?.ediv, rand: request?.rand, at: l))
            }
        case .hciEvent where b.count >= 3 && b[0] == 0x3E:
            switch b[2] {
            case 0x01, 0x0A:  // LE (Enhanced) Connection Complete: status, handle, role, address type, address
                if b.count >= 14, b[3] == 0 { peers[link(4)] = BDAddr(rawValue: le(b, 8, 6)) }
            case 0x05 where b.count >= 15:  // LE Long Term Key Request: handle, Rand, EDIV
                requests[link(3)] = (UInt16(le(b, 13, 2)), le(b, 5, 8))
            default:
                break
            }
        default:
            break
        }
    }

    private mutating func append(_ key: LongTermKey?) {
        guard let key, keys.count < KeyLimits.maximumKeys,
            !keys.contains(where: { $0.key == key.key && $0.peer == key.peer })
        else {
            return
        }
        keys.append(key)
    }
}

/// `count` octets of `b` from `at` read least significant first (the caller checked they exist).
private func le(_ b: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
    b[at..<(at + count)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
}
