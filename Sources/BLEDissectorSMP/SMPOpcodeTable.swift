import BLEInspectCore

/// The SMP opcodes (Core Specification Vol 3 Part H 3.3–3.6): one row per opcode, with its name,
/// length rule (the parameters after the opcode byte), sender, the opcode it answers, the
/// transports that carry it (over BR/EDR, SMP only derives and distributes keys), and its decoder.
enum SMPOpcodes {
    typealias Row = OpcodeRow<SMPDecoder>

    static let table = OpcodeTable<SMPDecoder>(
        StandardTables.smpOpcode,
        [
            Row(0x01, "Pairing Request", .exact(6), sender: .initiator, .pairingFeatures),
            Row(0x02, "Pairing Response", .exact(6), sender: .responder, answers: 0x01, .pairingFeatures),
            Row(0x03, "Pairing Confirm", .exact(16), sender: .either, transport: .le, .key(.cfmValue)),
            Row(0x04, "Pairing Random", .exact(16), sender: .either, transport: .le, .key(.randomValue)),
            Row(0x05, "Pairing Failed", .exact(1), sender: .either, .pairingFailed),
            Row(0x06, "Encryption Information", .exact(16), sender: .either, transport: .le, .key(.longTermKey)),
            Row(0x07, "Central Identification", .exact(10), sender: .either, transport: .le, .centralIdentification),
            Row(0x08, "Identity Information", .exact(16), sender: .either, .key(.idResolvingKey)),
            Row(0x09, "Identity Address Information", .exact(7), sender: .either, .identityAddress),
            Row(0x0A, "Signing Information", .exact(16), sender: .either, .key(.signatureKey)),
            Row(0x0B, "Security Request", .exact(1), sender: .responder, transport: .le, .securityRequest),
            Row(0x0C, "Pairing Public Key", .exact(64), sender: .either, transport: .le, .publicKey),
            Row(0x0D, "Pairing DHKey Check", .exact(16), sender: .either, transport: .le, .key(.dhkeyCheck)),
            Row(0x0E, "Pairing Keypress Notification", .exact(1), sender: .either, transport: .le, .keypress),
        ]
    )

    /// A dissector for each row, to bind in `StandardTables.smpOpcode`.
    static func dissectors(_ f: Fields<SMPField>) -> [SMPOpcodeDissector] {
        zip(table.facts.all, table.decoders).map { info, decoder in
            SMPOpcodeDissector(
                f: f,
                opcode: UInt8(truncatingIfNeeded: info.opcode),
                name: info.name,
                length: info.length,
                decoder: decoder
            )
        }
    }
}

/// The decoders of SMP opcodes, for `SMPOpcodes.table`'s rows.
enum SMPDecoder: Sendable {
    /// Pairing Request and Response.
    case pairingFeatures
    /// A 16-byte key or value, shown as `field`.
    case key(SMPField)
    case pairingFailed, centralIdentification, identityAddress, securityRequest, publicKey, keypress
}
