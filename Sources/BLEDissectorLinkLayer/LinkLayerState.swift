import BLEInspectCore
import BLEKeys

/// One connection the sniffer followed, by access address.
final class LLConnection {
    let number: UInt16
    let accessAddress: UInt32
    /// The key the L2CAP, ATT and SMP modules know the connection by.
    let key: ConnectionKey
    var crcInit: UInt32?
    var central: BDAddr?
    var peripheral: BDAddr?
    var connectFrame: Int?
    /// Connection interval in units of 1.25 ms, when known.
    var interval: UInt16?
    var lastNanos: Int64?
    var lastSender: LinkLayerInfo.Sender = .unknown
    /// Both sides send encrypted (non-empty) PDUs: from LL_START_ENC_REQ until a pause.
    var encrypted = false
    /// The encryption session under way (from LL_ENC_REQ), and its keys once LL_ENC_RSP is seen.
    var encryption: LLEncryption?
    /// The pairing seen in the clear, and the long term key a side distributed whose EDIV and
    /// Rand (SMP Central Identification) may follow.
    var pairing: LLPairing?
    var distributed: LongTermKey?
    /// The address types CONNECT_IND gave (c1 takes them).
    var centralRandom = false
    var peripheralRandom = false
    var lastFrame: Int
    /// Per sender (0 central, 1 peripheral): the L2CAP PDU being reassembled, and the last
    /// packet's sequence number and payload digest (for retransmissions).
    var partials: [L2CAPFragments?] = [nil, nil]
    var lastPacket: [LLSent?] = [nil, nil]

    init(number: UInt16, accessAddress: UInt32, frame: Int) {
        self.number = number
        self.accessAddress = accessAddress
        self.key = ConnectionKey(controller: LinkLayerState.controller, handle: number)
        self.lastFrame = frame
    }
}

/// A sender's last non-empty packet, for telling retransmissions.
struct LLSent {
    var sn: UInt8
    var digest: UInt64
    var frame: Int
    /// The peer has sent a NESN past this packet's sequence number.
    var acknowledged = false
}

/// The link layer's capture state: the connections, by access address.
final class LinkLayerState {
    /// The controller number of `ConnectionKey`s for sniffed connections: no HCI controller has it,
    /// so they never meet an HCI connection's state.
    static let controller: UInt16 = 0xFFFF
    /// The most connections followed at once; the one idle longest is forgotten past it.
    static let maximumConnections = 512
    /// The most bytes held in incomplete L2CAP PDUs, over all connections.
    static let maximumBuffered = 4 << 20

    var connections: [UInt32: LLConnection] = [:]
    /// Long term keys learned from SMP key distribution in decrypted sessions, newest last.
    private(set) var learned: [LongTermKey] = []
    /// The most learned keys kept; the oldest goes past it.
    static let maximumLearned = 256
    var nextNumber: UInt16 = 1
    var buffered = 0
    /// The numbers of the connections in `connections`.
    private var numbersInUse = Set<UInt16>()

    static func of(_ ctx: DissectionContext) -> LinkLayerState {
        ctx.state.module(LinkLayerState.self) { LinkLayerState() }
    }

    /// A new connection on `accessAddress`, replacing any earlier one there. When the table is
    /// full the connection idle longest is forgotten, with a note at `range`.
    func open(
        _ accessAddress: UInt32,
        frame: Int,
        _ ctx: inout DissectionContext,
        at range: Range<Int>,
        source: Int
    ) -> LLConnection {
        if let old = connections.removeValue(forKey: accessAddress) {
            numbersInUse.remove(old.number)
            forget(old, ctx)
        }
        if connections.count >= Self.maximumConnections,
            let idle = connections.values.min(by: { $0.lastFrame < $1.lastFrame })
        {
            connections[idle.accessAddress] = nil
            numbersInUse.remove(idle.number)
            forget(idle, ctx)
            ctx.expert(
                .warning,
                "Limit reached: \(Self.maximumConnections) connections followed; the one on access address 0x\(String(idle.accessAddress, radix: 16)), idle since frame \(idle.lastFrame), is forgotten",
                range,
                source: source
            )
        }
        // Numbers are reused after 65,534 connections: skip those still in use, so that two
        // connections never share a `ConnectionKey` (the table holds far fewer than 65,534).
        while numbersInUse.contains(nextNumber) { advanceNumber() }
        let connection = LLConnection(number: nextNumber, accessAddress: accessAddress, frame: frame)
        advanceNumber()
        numbersInUse.insert(connection.number)
        connections[accessAddress] = connection
        return connection
    }

    func learn(_ key: LongTermKey) {
        forgetLearned(key)
        if learned.count >= Self.maximumLearned { learned.removeFirst() }
        learned.append(key)
    }

    func forgetLearned(_ key: LongTermKey) { learned.removeAll { $0 == key } }

    private func advanceNumber() { nextNumber = nextNumber == 0xFFFE ? 1 : nextNumber + 1 }

    func forget(_ connection: LLConnection, _ ctx: DissectionContext) {
        for p in connection.partials { if let p { buffered -= p.bytes.count } }
        connection.partials = [nil, nil]
        ctx.state.closeConnection(connection.key)
    }
}

/// The LE CRC-24 (Core Specification Vol 6 Part B 3.1.1): polynomial x²⁴ + x¹⁰ + x⁹ + x⁶ + x⁴ + x³ +
/// x + 1, bits taken least significant first, the register started from the CRC init with its
/// bits reversed. The result's low byte is sent first.
enum LinkLayerCRC {
    static func compute(_ bytes: some Sequence<UInt8>, initial: UInt32) -> UInt32 {
        update(reversed24(initial), bytes)
    }

    /// The register after `bytes`, from `state`.
    static func update(_ state: UInt32, _ bytes: some Sequence<UInt8>) -> UInt32 {
        bytes.reduce(state) { state, byte in (state >> 8) ^ table[Int((state ^ UInt32(byte)) & 0xFF)] }
    }

    /// The register after one bit with no input: the bit shifted out decides whether the
    /// polynomial is added.
    static func shifted(_ state: UInt32) -> UInt32 {
        state & 1 != 0 ? (state >> 1 | 0x80_0000) ^ 0x5A_6000 : state >> 1
    }

    /// A byte at a time (256 entries): the input bits, taken least significant first, meet the
    /// register's low 8 bits, so a byte is the register's low 8 bits XORed with it, shifted 8
    /// times; the register's other bits just move down 8.
    static let table: [UInt32] = (0..<256).map { i in (0..<8).reduce(UInt32(i)) { state, _ in shifted(state) } }

    /// The low 24 bits of `value` in reverse order: the bits swapped within each byte (in pairs,
    /// then pairs of pairs, then nibbles), the bytes reversed, and the top 24 bits moved down.
    static func reversed24(_ value: UInt32) -> UInt32 {
        var v = (value >> 1) & 0x5555_5555 | (value & 0x5555_5555) << 1
        v = (v >> 2) & 0x3333_3333 | (v & 0x3333_3333) << 2
        v = (v >> 4) & 0x0F0F_0F0F | (v & 0x0F0F_0F0F) << 4
        return v.byteSwapped >> 8
    }
}
