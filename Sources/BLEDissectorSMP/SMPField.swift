public import BLEInspectCore

/// The fields of the Security Manager Protocol (Core Specification Vol 3 Part H 3).
///
/// Filter names are Wireshark's (`btsmp.*`). What Wireshark lacks is under `smp.*`: the pairing
/// method, Secure Connections and the encryption key size that follow from a Pairing Request and
/// its Pairing Response, and the frame of that request.
public enum SMPField: UInt16, FieldSet {
    case opcode, ioCapability, oobDataFlags
    case authReq, bondingFlags, mitmFlag, scFlag, keypressFlag, ct2Flag, reservedFlags
    case maxEncKeySize, initiatorKeyDistribution, responderKeyDistribution
    case keyDistEnc, keyDistID, keyDistSign, keyDistLinkKey, keyDistReserved
    case cfmValue, randomValue, reason, longTermKey, ediv, idResolvingKey, addressType, bdAddr, signatureKey
    case publicKeyX, publicKeyY, dhkeyCheck, notificationType
    case pairingMethod, secureConnections, encryptionKeySize, requestInFrame

    public static let layer = FieldDescriptor(
        "btsmp",
        "Bluetooth Security Manager Protocol",
        .layer,
        help: "SMP on L2CAP fixed channel 6 (LE) or 7 (BR/EDR)",
        short: "SMP"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .opcode: .uint("btsmp.opcode", "Opcode", 8, hex: true, names: SMPNames.opcodes)
        case .ioCapability: .uint("btsmp.io_capability", "IO Capability", 8, hex: true, names: SMPNames.ioCapabilities)
        case .oobDataFlags: .uint("btsmp.oob_data_flags", "OOB Data Flags", 8, hex: true, names: ValueNames([(0, "OOB Authentication data not present"), (1, "OOB Authentication data from remote device present")]))
        case .authReq: .uint("btsmp.authreq", "AuthReq", 8, hex: true)
        case .bondingFlags: .uint("btsmp.bonding_flags", "Bonding Flags", 8, hex: true, names: ValueNames([(0, "No Bonding"), (1, "Bonding")]), mask: 0x03)
        case .mitmFlag: .flag("btsmp.mitm_flag", "MITM Flag", 0x04)
        case .scFlag: .flag("btsmp.sc_flag", "Secure Connection Flag", 0x08)
        case .keypressFlag: .flag("btsmp.keypress_flag", "Keypress Flag", 0x10)
        case .ct2Flag: .flag("btsmp.ct2_flag", "CT2 Flag", 0x20, help: "Supports the h7 function for cross-transport key derivation")
        case .reservedFlags: .uint("btsmp.reserved_flags", "Reserved", 8, hex: true, mask: 0xC0)
        case .maxEncKeySize: .uint("btsmp.max_enc_key_size", "Max Encryption Key Size", 8, help: "Bytes, 7 to 16")
        case .initiatorKeyDistribution: .uint("btsmp.initiator_key_distribution", "Initiator Key Distribution", 8, hex: true)
        case .responderKeyDistribution: .uint("btsmp.responder_key_distribution", "Responder Key Distribution", 8, hex: true)
        case .keyDistEnc: .flag("btsmp.key_dist_enc", "Encryption Key (LTK)", 0x01, help: "EncKey: LTK, EDIV and Rand (legacy); with Secure Connections, derive the LTK")
        case .keyDistID: .flag("btsmp.key_dist_id", "Id Key (IRK)", 0x02)
        case .keyDistSign: .flag("btsmp.key_dist_sign", "Signature Key (CSRK)", 0x04)
        case .keyDistLinkKey: .flag("btsmp.key_dist_linkkey", "Link Key", 0x08, help: "Derive the BR/EDR link key from the LE LTK (or the reverse on BR/EDR)")
        case .keyDistReserved: .uint("btsmp.key_dist_reserved", "Reserved", 8, hex: true, mask: 0xF0)
        case .cfmValue: FieldDescriptor("btsmp.cfm_value", "Confirm Value", .bytes)
        case .randomValue: FieldDescriptor("btsmp.random_value", "Random Value", .bytes, help: "Mrand/Srand of Pairing Random, or the 8-byte Rand of Central Identification")
        case .reason: .uint("btsmp.reason", "Reason", 8, hex: true, names: SMPNames.reasons)
        case .longTermKey: FieldDescriptor("btsmp.long_term_key", "Long Term Key", .bytes, help: "As sent, least significant byte first")
        case .ediv: .uint("btsmp.ediv", "Encrypted Diversifier (EDIV)", 16, hex: true)
        case .idResolvingKey: FieldDescriptor("btsmp.id_resolving_key", "Identity Resolving Key", .bytes, help: "As sent, least significant byte first")
        case .addressType: .uint("btsmp.address_type", "Address Type", 8, hex: true, names: ValueNames([(0, "Public"), (1, "Random (static)")]))
        case .bdAddr: FieldDescriptor("btsmp.bd_addr", "BD_ADDR", .address, help: "The identity address")
        case .signatureKey: FieldDescriptor("btsmp.signature_key", "Signature Key", .bytes, help: "CSRK, as sent, least significant byte first")
        case .publicKeyX: FieldDescriptor("btsmp.public_key_x", "Public Key X", .bytes, help: "P-256, least significant byte first")
        case .publicKeyY: FieldDescriptor("btsmp.public_key_y", "Public Key Y", .bytes, help: "P-256, least significant byte first")
        case .dhkeyCheck: FieldDescriptor("btsmp.dhkey_check", "DHKey Check", .bytes)
        case .notificationType: .uint("btsmp.notification_type", "Notification Type", 8, hex: true, names: ValueNames([(0, "Passkey Entry Started"), (1, "Passkey Digit Entered"), (2, "Passkey Digit Erased"), (3, "Passkey Cleared"), (4, "Passkey Entry Completed")]))
        case .pairingMethod: .uint("smp.pairing_method", "Pairing Method", 8, names: SMPNames.methods, help: "The association model that the Pairing Request (of the frame in smp.request_in_frame) and this Pairing Response select: OOB flags, MITM flags and IO capabilities, as in Core Vol 3 Part H 2.3.5.1")
        case .secureConnections: FieldDescriptor("smp.secure_connections", "LE Secure Connections", .boolean, help: "Both sides set the SC flag: LE Secure Connections pairing, otherwise LE legacy pairing")
        case .encryptionKeySize: .uint("smp.encryption_key_size", "Encryption Key Size", 8, help: "The smaller of the two Maximum Encryption Key Sizes, in bytes")
        case .requestInFrame: .uint("smp.request_in_frame", "Pairing Request in Frame", 32, help: "The frame of the Pairing Request this Pairing Response answers")
        }
    }
}

/// Value names of SMP (Core Specification Vol 3 Part H 3.3–3.6).
enum SMPNames {
    /// The opcodes' names, from `SMPOpcodes.table`.
    static let opcodes = ValueNames(SMPOpcodes.table.facts.all.map { (UInt64($0.opcode), $0.name) })

    static let ioCapabilityList: [(UInt64, String)] = [
        (0, "DisplayOnly"), (1, "DisplayYesNo"), (2, "KeyboardOnly"), (3, "NoInputNoOutput"), (4, "KeyboardDisplay"),
    ]

    /// With Wireshark's names, for filters written in Wireshark (`"Keyboard, Display"`).
    static let ioCapabilities = ValueNames(
        ioCapabilityList,
        filterAliases: [
            (0, "Display Only"), (1, "Display Yes/No"), (2, "Keyboard Only"), (3, "No Input, No Output"),
            (4, "Keyboard, Display"),
        ]
    )

    static let reasons = ValueNames([
        (0x01, "Passkey Entry Failed"),
        (0x02, "OOB Not Available"),
        (0x03, "Authentication Requirements"),
        (0x04, "Confirm Value Failed"),
        (0x05, "Pairing Not Supported"),
        (0x06, "Encryption Key Size"),
        (0x07, "Command Not Supported"),
        (0x08, "Unspecified Reason"),
        (0x09, "Repeated Attempts"),
        (0x0A, "Invalid Parameters"),
        (0x0B, "DHKey Check Failed"),
        (0x0C, "Numeric Comparison Failed"),
        (0x0D, "BR/EDR Pairing in Progress"),
        (0x0E, "Cross-transport Key Derivation/Generation Not Allowed"),
        (0x0F, "Key Rejected"),
        (0x10, "Busy"),
    ])

    static let methods = ValueNames(PairingMethod.allCases.map { (UInt64($0.rawValue), $0.name) })

    static func hex8(_ v: UInt8) -> String { HexText.prefixed(UInt64(v), digits: 2, upperCase: false) }
}

/// The association model of a pairing (Core Vol 3 Part H 2.3.5.1).
enum PairingMethod: UInt8, CaseIterable {
    case justWorks, numericComparison, passkeyInitiatorInputs, passkeyResponderInputs, passkeyBothInput, outOfBand

    var name: String {
        switch self {
        case .justWorks: "Just Works"
        case .numericComparison: "Numeric Comparison"
        case .passkeyInitiatorInputs: "Passkey Entry (initiator inputs, responder displays)"
        case .passkeyResponderInputs: "Passkey Entry (responder inputs, initiator displays)"
        case .passkeyBothInput: "Passkey Entry (both input)"
        case .outOfBand: "Out of Band"
        }
    }

    /// The model for a pairing with these features; `sc` is LE Secure Connections.
    static func select(
        initiatorIO: UInt8,
        initiatorOOB: Bool,
        initiatorMITM: Bool,
        responderIO: UInt8,
        responderOOB: Bool,
        responderMITM: Bool,
        sc: Bool
    ) -> PairingMethod {
        // Legacy pairing uses OOB when both sides have OOB data, Secure Connections when either has.
        if sc ? (initiatorOOB || responderOOB) : (initiatorOOB && responderOOB) { return .outOfBand }
        if !initiatorMITM && !responderMITM { return .justWorks }
        // Reserved IO capabilities are treated as NoInputNoOutput.
        let i = initiatorIO <= 4 ? initiatorIO : 3
        let r = responderIO <= 4 ? responderIO : 3
        if i == 3 || r == 3 { return .justWorks }
        // Rows: initiator; columns: responder. 0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly,
        // 4 KeyboardDisplay (NoInputNoOutput handled above).
        switch (i, r) {
        case (0, 0), (0, 1), (1, 0): return .justWorks
        case (1, 1): return sc ? .numericComparison : .justWorks
        case (0, 2), (0, 4), (1, 2): return .passkeyResponderInputs
        case (1, 4), (4, 4): return sc ? .numericComparison : .passkeyResponderInputs
        case (4, 1): return sc ? .numericComparison : .passkeyInitiatorInputs
        case (2, 0), (2, 1), (2, 4), (4, 0): return .passkeyInitiatorInputs
        case (2, 2): return .passkeyBothInput
        case (4, 2): return .passkeyResponderInputs
        default: return .justWorks
        }
    }
}
