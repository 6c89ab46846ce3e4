import BLEInspectCore

/// The signalling channels: CID 0x0005 on LE links, CID 0x0001 on BR/EDR links.
///
/// Decodes every command through `SignallingCommands.table` (one row per command code), and
/// learns dynamic channels from the connection requests and responses (LE credit based, enhanced
/// credit based, BR/EDR), credit indications, reconfigurations and disconnections. The decoders
/// are in SignallingBREDR.swift and SignallingCredit.swift.
struct SignallingDissector: Dissector {
    let f: Fields<L2CAPField>
    let coc: Fields<CoCField>
    /// True for the LE signalling channel (one command per PDU).
    let le: Bool

    /// The most commands decoded from one signalling PDU.
    static let maximumCommands = 256

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        var count = 0
        if reader.isAtEnd {
            context.expert(.warning, "Empty signalling PDU", reader.offset..<reader.offset, source: reader.source)
            context.setInfo(le ? "LE signalling (empty)" : "Signalling (empty)")
            return
        }
        while !reader.isAtEnd {
            if count == Self.maximumCommands {
                context.expert(
                    .warning,
                    "Limit reached: more than \(Self.maximumCommands) commands in one PDU: the rest are not decoded",
                    reader.offset..<(reader.offset + reader.remaining),
                    source: reader.source
                )
                context.addRest(f[.cmdData], &reader)
                return
            }
            if le && count == 1 {
                context.expert(
                    .warning,
                    "An LE signalling PDU carries one command; more bytes follow it",
                    reader.offset..<(reader.offset + reader.remaining),
                    source: reader.source
                )
            }
            // The command's bytes (its header and the data its length field gives, or as much of
            // them as there is), inside the engine's error boundary: a command whose data is bad
            // gets a malformed note in its node, and the next one is still decoded.
            var command = try reader.readSlice(Self.commandSize(reader))
            context.run(SignallingCommand(signalling: self, first: count == 0), &command)
            count += 1
        }
    }

    /// The bytes of the command at `reader`: its 4-byte header and the data length it gives,
    /// at most what is left.
    static func commandSize(_ reader: ByteReader) -> Int {
        guard let lo = reader.peekUInt8(at: 2), let hi = reader.peekUInt8(at: 3) else { return reader.remaining }
        return min(reader.remaining, 4 + (Int(hi) << 8 | Int(lo)))
    }
}

/// One signalling command: its node, header and checks, then its row's decoder, which gets the
/// command's data under the row's length rule (`DissectionContext.decode(_:length:leavingRest:)`).
/// Run by `SignallingDissector` through `DissectionContext.run`, whose error boundary puts the
/// malformed note of a bad command inside the command's node.
struct SignallingCommand: Dissector {
    let signalling: SignallingDissector
    /// The first command of its PDU (which sets the summary; the others append to it).
    let first: Bool

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let f = signalling.f
        let le = signalling.le
        let start = reader.offset
        let source = reader.source
        let commandIndex = context.tree.nextIndex
        let code = reader.peekUInt8() ?? 0
        let row = SignallingCommands.table[UInt16(code)]
        let name = row?.info.name ?? "Unknown Command"
        context.tree.open(f[.command], text: name, start..<(start + min(reader.remaining, 4)), source: source)
        _ = try context.addUInt8(f[.cmdCode], &reader)
        let ident = try context.addUInt8(f[.cmdIdent], &reader)
        let length = try context.addUInt16(f[.cmdLength], &reader)
        var body = reader.readRest()
        context.tree.setEnd(ofNode: commandIndex, to: body.offset + body.remaining)
        if first {
            context.setInfo(name)
        } else {
            context.appendInfo(name)
        }
        if body.remaining < Int(length) {
            context.expert(
                .warning,
                "Command length \(length) runs past the PDU (\(body.remaining) bytes left)",
                start..<(body.offset + body.remaining),
                source: source
            )
        }
        if row?.info.transport.allows(le: le) != true {
            context.expert(
                .note,
                "\(name) is not a command of the \(le ? "LE" : "BR/EDR") signalling channel",
                start..<(start + 1),
                source: source
            )
        }
        guard let row else {
            context.expert(
                .warning,
                "Unknown command code \(Format.hex8(code))",
                body.offset..<(body.offset + body.remaining),
                source: source
            )
            context.addRest(f[.cmdData], &body)
            return
        }
        let decoder = SignallingParameters(signalling: signalling, ident: ident, decode: row.decode)
        try context.decode(&body, length: row.info.length, leavingRest: decoder)
        if !body.isAtEnd {
            context.expert(
                .warning,
                "\(body.remaining) unexpected byte\(body.remaining == 1 ? "" : "s") after the command",
                body.offset..<(body.offset + body.remaining),
                source: source
            )
            context.addRest(f[.cmdData], &body)
        }
    }
}

extension DissectionContext {
    /// The L2CAP module's state for this capture.
    var l2capState: L2CAPState { state.module(L2CAPState.self) { L2CAPState() } }

    /// The connection of the current PDU (a placeholder when the lower layer gave none).
    var l2capConnection: ConnectionKey {
        packet.connection ?? ConnectionKey(controller: controller, handle: 0xFFFF)
    }

    /// Adds " (detail)" to the last command's name on the info line.
    mutating func appendInfoDetail(_ text: @autoclosure () -> String) {
        if wantsInfo {
            tree.appendInfo(" (")
            tree.appendInfo(text())
            tree.appendInfo(")")
        }
    }
}
