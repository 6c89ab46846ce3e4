import BLECrack
import BLECrypto
import BLEInspectCore

/// What a test reads from a sniffed connection in a PPI capture with a BTLE field: the pairing
/// PDUs (first of each), LL_ENC_REQ's and LL_ENC_RSP's diversifiers and IVs, CONNECT_REQ's
/// addresses, and the first encrypted PDU after them.
struct SniffedLink {
    var pairingRequest: [UInt8] = []
    var pairingResponse: [UInt8] = []
    var confirms: [[UInt8]] = []
    var randoms: [[UInt8]] = []
    var initiator = LEAddress(BDAddr(rawValue: 0), isRandom: false)
    var responder = LEAddress(BDAddr(rawValue: 0), isRandom: false)
    var skdCentral: UInt64 = 0
    var ivCentral: UInt32 = 0
    var skdPeripheral: UInt64 = 0
    var ivPeripheral: UInt32 = 0
    var firstEncrypted: (header: UInt8, payload: [UInt8])?

    init?(_ frames: [CapturedFrame]) {
        var encrypting = false
        for frame in frames {
            // PPI: its header's length is octets 2 and 3; the packet (access address, header,
            // payload, CRC) follows.
            let b = frame.bytes
            guard b.count >= 4 else { continue }
            let start = Int(b[2]) | Int(b[3]) << 8
            guard b.count >= start + 9 else { continue }
            let header = b[start + 4]
            let length = Int(b[start + 5])
            guard b.count >= start + 6 + length + 3 else { continue }
            let payload = Array(b[(start + 6)..<(start + 6 + length)])
            let advertising = b[start..<(start + 4)].elementsEqual([0xD6, 0xBE, 0x89, 0x8E])
            if advertising {
                if header & 0x0F == 0x05, payload.count >= 12 {
                    initiator = LEAddress(Self.address(payload[0..<6]), isRandom: header & 0x40 != 0)
                    responder = LEAddress(Self.address(payload[6..<12]), isRandom: header & 0x80 != 0)
                }
            } else if encrypting {
                if firstEncrypted == nil, length > 4, header & 0x03 == 0x02 { firstEncrypted = (header, payload) }
            } else {
                encrypting = record(header: header, payload: payload)
            }
        }
        guard pairingRequest.count == 7, pairingResponse.count == 7, confirms.count == 2, randoms.count == 2 else {
            return nil
        }
    }

    /// Records one unencrypted data PDU; true at LL_START_ENC_REQ, after which PDUs are encrypted.
    mutating func record(header: UInt8, payload: [UInt8]) -> Bool {
        let llid = header & 0x03
        if llid == 0x03, let opcode = payload.first {
            if opcode == 0x03, payload.count == 23 {  // LL_ENC_REQ: Rand, EDIV, SKD_C, IV_C
                skdCentral = Self.littleEndian(payload[11..<19])
                ivCentral = UInt32(truncatingIfNeeded: Self.littleEndian(payload[19..<23]))
            } else if opcode == 0x04, payload.count == 13 {  // LL_ENC_RSP: SKD_P, IV_P
                skdPeripheral = Self.littleEndian(payload[1..<9])
                ivPeripheral = UInt32(truncatingIfNeeded: Self.littleEndian(payload[9..<13]))
            }
            return opcode == 0x05
        }
        // An L2CAP PDU on CID 6 (SMP).
        guard llid == 0x02, payload.count >= 5, payload[2] == 0x06, payload[3] == 0x00 else { return false }
        let smp = Array(payload.dropFirst(4))
        switch smp[0] {
        case 0x01 where pairingRequest.isEmpty: pairingRequest = smp
        case 0x02 where pairingResponse.isEmpty: pairingResponse = smp
        case 0x03 where smp.count == 17: confirms.append(Array(smp.dropFirst()))
        case 0x04 where smp.count == 17: randoms.append(Array(smp.dropFirst()))
        default: break
        }
        return false
    }

    /// The pairing to crack: the initiator's confirm and random came first.
    func pairing() throws -> LegacyPairing {
        LegacyPairing(
            inputs: try C1Inputs(
                pairingRequest: pairingRequest,
                pairingResponse: pairingResponse,
                initiator: initiator,
                responder: responder
            ),
            mconfirm: try Value128(lsoFirst: confirms[0]),
            sconfirm: try Value128(lsoFirst: confirms[1]),
            mrand: try Value128(lsoFirst: randoms[0]),
            srand: try Value128(lsoFirst: randoms[1])
        )
    }

    static func address(_ octets: ArraySlice<UInt8>) -> BDAddr { BDAddr(rawValue: littleEndian(octets)) }

    static func littleEndian(_ octets: ArraySlice<UInt8>) -> UInt64 {
        octets.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
