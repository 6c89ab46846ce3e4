import BLEInspectCore

/// Decodes the SMP opcode, then hands the parameters to the decoder bound to it in
/// `StandardTables.smpOpcode`. Bound to L2CAP fixed channels 6 (LE) and 7 (BR/EDR).
struct SMPDissector: Dissector {
    let f: Fields<SMPField>
    let next: Handoff<UInt8>

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = reader.offset
        let src = reader.source
        context.tree.open(f.layer, .none, start..<(start + reader.remaining), source: src)
        let opcode = try context.addUInt8(f[.opcode], &reader)
        let direction = context.direction
        context.setInfo(SMPInfo.prefix(direction) + SMPInfo.opcodeName(opcode))
        var parameters = reader.readRest()
        context.handOff(next, opcode, &parameters)
        context.tree.close()
    }
}

/// Remembers each connection's Pairing Request until its Pairing Response, to show the pairing
/// method they select.
final class SMPState: ConnectionScopedState {
    struct Request {
        var frame: Int
        var direction: Direction
        var io: UInt8
        var oob: UInt8
        var authReq: UInt8
        var maxKeySize: UInt8
    }

    private(set) var requests: [ConnectionKey: Request] = [:]

    /// The most connections with a pairing in progress; past it an arbitrary one is forgotten.
    static let maximumConnections = 4096

    init() {}

    static func of(_ context: DissectionContext) -> SMPState {
        context.state.module(SMPState.self) { SMPState() }
    }

    /// Remembers `request`; true when another connection's request was dropped to make room.
    func remember(_ request: Request, for connection: ConnectionKey) -> Bool {
        var evicted = false
        if requests[connection] == nil, requests.count >= Self.maximumConnections, let victim = requests.keys.first {
            requests[victim] = nil
            evicted = true
        }
        requests[connection] = request
        return evicted
    }

    func take(for connection: ConnectionKey, answeredFrom direction: Direction) -> Request? {
        guard let r = requests[connection] else { return nil }
        guard r.direction == .unknown || direction == .unknown || r.direction != direction else { return nil }
        requests[connection] = nil
        return r
    }

    func connectionClosed(_ key: ConnectionKey) { requests[key] = nil }
}

/// Decodes the parameters of one SMP opcode: a row of `SMPOpcodes.table`.
struct SMPOpcodeDissector: Dissector, ParameterDecoder {
    let f: Fields<SMPField>
    let opcode: UInt8
    /// The row's name ("Pairing Request").
    let name: String
    let length: OpcodeLength
    let decoder: SMPDecoder

    /// The LE Secure Connections debug public key (Core Vol 3 Part H 2.3.5.6.1), as sent (least
    /// significant byte first): X then Y.
    static let debugPublicKey: [UInt8] = {
        let x = "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6"
        let y = "dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b"
        return Array(bytes(x).reversed()) + Array(bytes(y).reversed())
    }()

    private static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8? = nil
        for c in hex.utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            default: continue
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return out
    }

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        try context.decode(&reader, length: length, trailing: name, self)
    }

    /// Runs the row's decoder on the parameters (`ParameterDecoder`).
    func decode(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        switch decoder {
        case .pairingFeatures:
            try pairingFeatures(&reader, &context)
        case .key(let field):
            try key(field, 16, &reader, &context)
        case .pairingFailed:
            let reason = try context.addUInt8(f[.reason], &reader)
            context.appendInfoAfterName(SMPInfo.reasonName(reason))
        case .centralIdentification:
            let ediv = try context.addUInt16(f[.ediv], &reader)
            try key(.randomValue, 8, &reader, &context)
            context.appendInfoAfterName("EDIV: " + SMPInfo.hex16(ediv))
        case .identityAddress:
            let type = try context.addUInt8(f[.addressType], &reader)
            let address = try reader.readAddress()
            context.tree.add(f[.bdAddr], .address(address), (at + 1)..<(at + 7), source: src)
            if type > 1 {
                context.expert(.warning, "Address type \(type) is reserved", at..<(at + 1), source: src)
            }
            context.appendInfoAfterName(address.description + (type == 0 ? " (Public)" : type == 1 ? " (Random)" : ""))
        case .securityRequest:
            let authReq = try reader.readUInt8()
            addAuthReq(authReq, at..<(at + 1), &context, source: src)
            context.appendInfoAfterName("AuthReq: " + SMPInfo.authReq(authReq))
        case .publicKey:
            let keyBytes = reader.remainingSlice.prefix(64)
            try key(.publicKeyX, 32, &reader, &context)
            try key(.publicKeyY, 32, &reader, &context)
            if keyBytes.elementsEqual(Self.debugPublicKey) {
                context.expert(
                    .warning,
                    "This is the Secure Connections debug public key: anyone can derive this pairing's keys",
                    at..<(at + 64),
                    source: src
                )
            }
        case .keypress:
            let type = try context.addUInt8(f[.notificationType], &reader)
            context.appendInfoAfterName(SMPInfo.notificationName(type))
        }
    }

    private func key(
        _ field: SMPField,
        _ count: Int,
        _ reader: inout ByteReader,
        _ context: inout DissectionContext
    ) throws(DecodeError) {
        let at = reader.offset
        try reader.skip(count)
        context.tree.add(f[field], .bytes, at..<(at + count), source: reader.source)
    }

    /// Pairing Request and Pairing Response.
    private func pairingFeatures(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let io = try context.addUInt8(f[.ioCapability], &reader)
        let oob = try context.addUInt8(f[.oobDataFlags], &reader)
        let authReq = try reader.readUInt8()
        addAuthReq(authReq, (at + 2)..<(at + 3), &context, source: src)
        let maxKey = try context.addUInt8(f[.maxEncKeySize], &reader)
        let initiatorKeys = try reader.readUInt8()
        addKeyDistribution(.initiatorKeyDistribution, initiatorKeys, (at + 4)..<(at + 5), &context, source: src)
        let responderKeys = try reader.readUInt8()
        addKeyDistribution(.responderKeyDistribution, responderKeys, (at + 5)..<(at + 6), &context, source: src)
        if io > 4 {
            context.expert(.warning, "IO capability \(io) is reserved", at..<(at + 1), source: src)
        }
        if oob > 1 {
            context.expert(.warning, "OOB data flag \(oob) is reserved", (at + 1)..<(at + 2), source: src)
        }
        if maxKey < 7 || maxKey > 16 {
            context.expert(
                .warning,
                "Maximum encryption key size \(maxKey) is outside 7..16",
                (at + 3)..<(at + 4),
                source: src
            )
        }
        context.appendInfoAfterName(
            "IO Capability: " + SMPInfo.ioName(io) + ", AuthReq: " + SMPInfo.authReq(authReq)
                + " | Initiator Keys: " + SMPInfo.keys(initiatorKeys) + " | Responder Keys: "
                + SMPInfo.keys(responderKeys)
        )

        let state = SMPState.of(context)
        let connection = context.packet.connection ?? ConnectionKey(controller: context.controller, handle: 0xFFFF)
        // Over BR/EDR (channel 7) SMP only derives keys: IO capability, OOB and AuthReq are unused.
        let lowEnergy = context.packet.cid != 7
        if opcode == 0x01 {
            let request = SMPState.Request(
                frame: context.frameNumber,
                direction: context.direction,
                io: io,
                oob: oob,
                authReq: authReq,
                maxKeySize: maxKey
            )
            if state.remember(request, for: connection) {
                context.expert(
                    .note,
                    "Limit reached: SMP state of \(SMPState.maximumConnections) pairings reached; an older one was forgotten",
                    at..<(at + 6),
                    source: src
                )
            }
            return
        }
        guard let request = state.take(for: connection, answeredFrom: context.direction) else { return }
        let generated = (at + 6)..<(at + 6)
        context.tree.add(f[.requestInFrame], .unsigned(UInt64(request.frame)), generated, source: src)
        let keySize = min(request.maxKeySize, maxKey)
        context.tree.add(f[.encryptionKeySize], .unsigned(UInt64(keySize)), generated, source: src)
        guard lowEnergy else { return }
        let sc = request.authReq & 0x08 != 0 && authReq & 0x08 != 0
        let method = PairingMethod.select(
            initiatorIO: request.io,
            initiatorOOB: request.oob == 1,
            initiatorMITM: request.authReq & 0x04 != 0,
            responderIO: io,
            responderOOB: oob == 1,
            responderMITM: authReq & 0x04 != 0,
            sc: sc
        )
        context.tree.add(f[.secureConnections], .boolean(sc), generated, source: src)
        context.tree.add(f[.pairingMethod], .unsigned(UInt64(method.rawValue)), generated, source: src)
        context.appendInfoRaw(
            (sc ? " | LE Secure Connections, " : " | LE Legacy Pairing, ") + method.name + ", request #\(request.frame)"
        )
    }

    private func addAuthReq(_ v: UInt8, _ r: Range<Int>, _ context: inout DissectionContext, source: Int) {
        context.tree.open(f[.authReq], .unsigned(UInt64(v)), r, source: source)
        context.tree.add(f[.bondingFlags], .unsigned(UInt64(v & 0x03)), r, source: source)
        context.tree.add(f[.mitmFlag], .boolean(v & 0x04 != 0), r, source: source)
        context.tree.add(f[.scFlag], .boolean(v & 0x08 != 0), r, source: source)
        context.tree.add(f[.keypressFlag], .boolean(v & 0x10 != 0), r, source: source)
        context.tree.add(f[.ct2Flag], .boolean(v & 0x20 != 0), r, source: source)
        context.tree.add(f[.reservedFlags], .unsigned(UInt64(v >> 6)), r, source: source)
        context.tree.close()
    }

    private func addKeyDistribution(
        _ field: SMPField,
        _ v: UInt8,
        _ r: Range<Int>,
        _ context: inout DissectionContext,
        source: Int
    ) {
        context.tree.open(f[field], .unsigned(UInt64(v)), r, source: source)
        context.tree.add(f[.keyDistEnc], .boolean(v & 0x01 != 0), r, source: source)
        context.tree.add(f[.keyDistID], .boolean(v & 0x02 != 0), r, source: source)
        context.tree.add(f[.keyDistSign], .boolean(v & 0x04 != 0), r, source: source)
        context.tree.add(f[.keyDistLinkKey], .boolean(v & 0x08 != 0), r, source: source)
        context.tree.add(f[.keyDistReserved], .unsigned(UInt64(v >> 4)), r, source: source)
        context.tree.close()
    }
}

extension DissectionContext {
    /// Adds `text` after the opcode name with ": ", as tshark's SMP summaries do.
    fileprivate mutating func appendInfoAfterName(_ text: @autoclosure () -> String) {
        if wantsInfo {
            tree.appendInfo(": ")
            tree.appendInfo(text())
        }
    }

    /// Adds `text` to the summary as it is.
    fileprivate mutating func appendInfoRaw(_ text: @autoclosure () -> String) {
        if wantsInfo { tree.appendInfo(text()) }
    }
}

/// Pieces of SMP summaries.
enum SMPInfo {
    static func prefix(_ direction: Direction) -> String {
        switch direction {
        case .hostToController: "Sent "
        case .controllerToHost: "Rcvd "
        case .unknown: ""
        }
    }

    static func opcodeName(_ opcode: UInt8) -> String {
        SMPNames.opcodes.lookup(UInt64(opcode)) ?? "Unknown Opcode " + SMPNames.hex8(opcode)
    }

    static func reasonName(_ reason: UInt8) -> String {
        SMPNames.reasons.lookup(UInt64(reason)) ?? "Reserved Reason " + SMPNames.hex8(reason)
    }

    static func ioName(_ io: UInt8) -> String {
        SMPNames.ioCapabilities.lookup(UInt64(io)) ?? "Reserved " + SMPNames.hex8(io)
    }

    static func notificationName(_ type: UInt8) -> String {
        SMPField.notificationType.descriptor.valueNames?.lookup(UInt64(type)) ?? "Reserved " + SMPNames.hex8(type)
    }

    /// "Bonding, MITM, SC, Keypress, CT2".
    static func authReq(_ v: UInt8) -> String {
        var parts: [String] = [v & 0x03 == 1 ? "Bonding" : v & 0x03 == 0 ? "No Bonding" : "Reserved Bonding"]
        if v & 0x04 != 0 { parts.append("MITM") }
        if v & 0x08 != 0 { parts.append("SC") }
        if v & 0x10 != 0 { parts.append("Keypress") }
        if v & 0x20 != 0 { parts.append("CT2") }
        return parts.joined(separator: ", ")
    }

    /// "LTK, IRK, CSRK, LinkKey", or "none".
    static func keys(_ v: UInt8) -> String {
        var parts: [String] = []
        if v & 0x01 != 0 { parts.append("LTK") }
        if v & 0x02 != 0 { parts.append("IRK") }
        if v & 0x04 != 0 { parts.append("CSRK") }
        if v & 0x08 != 0 { parts.append("LinkKey") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    static func hex16(_ v: UInt16) -> String { HexText.prefixed(UInt64(v), digits: 4, upperCase: false) }
}
