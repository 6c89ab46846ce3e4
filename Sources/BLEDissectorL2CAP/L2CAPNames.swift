public import BLEInspectCore

/// Value names for L2CAP fields, written from the Bluetooth Core Specification (Vol 3, Part A)
/// and the SIG's assigned numbers.
public enum L2CAPNames {
    /// Signalling command codes, from `SignallingCommands.table`.
    public static let commandPairs: [(UInt64, String)] = SignallingCommands.table.facts.all.map {
        (UInt64($0.opcode), $0.name)
    }
    /// With Wireshark's names where they differ, for filters written in Wireshark.
    public static let command = ValueNames(
        commandPairs,
        filterAliases: [(0x04, "Configure Request"), (0x05, "Configure Response"), (0x10, "Move Channel Confirmation")]
    )

    /// Fixed channel identifiers and the dynamic range.
    public static let cid = ValueNames(lookup: { v in
        switch v {
        case 0x0000: "Null identifier"
        case 0x0001: "L2CAP Signalling Channel"
        case 0x0002: "Connectionless Channel"
        case 0x0003: "AMP Manager Protocol"
        case 0x0004: "Attribute Protocol"
        case 0x0005: "LE L2CAP Signalling Channel"
        case 0x0006: "Security Manager Protocol"
        case 0x0007: "BR/EDR Security Manager"
        case 0x003F: "AMP Test Manager"
        case 0x0008...0x003E: "Reserved"
        case 0x0040...0xFFFF: "Dynamically Allocated Channel"
        default: nil
        }
    })

    /// SIG-assigned PSMs.
    static let psmPairs: [(UInt64, String)] = [
        (0x0001, "SDP"), (0x0003, "RFCOMM"), (0x0005, "TCS-BIN"), (0x0007, "TCS-BIN-CORDLESS"),
        (0x000F, "BNEP"), (0x0011, "HID Control"), (0x0013, "HID Interrupt"), (0x0015, "UPnP"),
        (0x0017, "AVCTP"), (0x0019, "AVDTP"), (0x001B, "AVCTP Browsing"), (0x001D, "UDI C-Plane"),
        (0x001F, "ATT"), (0x0021, "3DSP"), (0x0023, "IPSP"), (0x0025, "OTS"), (0x0027, "EATT"),
    ]
    public static let psm = ValueNames(psmPairs)

    /// LE PSMs: SIG-assigned below 0x0080, dynamic up to 0x00FF.
    public static let lePSM = ValueNames(lookup: { v in
        switch v {
        case 0x0023: "IPSP"
        case 0x0025: "OTS"
        case 0x0027: "EATT"
        case 0x0001...0x007F: "Fixed, SIG assigned"
        case 0x0080...0x00FF: "Dynamically allocated"
        default: nil
        }
    })

    public static let connectionResult = ValueNames([
        (0x0000, "Connection successful"),
        (0x0001, "Connection pending"),
        (0x0002, "Connection refused - PSM not supported"),
        (0x0003, "Connection refused - security block"),
        (0x0004, "Connection refused - no resources available"),
        (0x0005, "Connection refused - Controller ID not supported"),
        (0x0006, "Connection refused - invalid Source CID"),
        (0x0007, "Connection refused - Source CID already allocated"),
    ])

    public static let connectionStatus = ValueNames([
        (0x0000, "No further information available"),
        (0x0001, "Authentication pending"),
        (0x0002, "Authorization pending"),
    ])

    public static let rejectReason = ValueNames([
        (0x0000, "Command not understood"),
        (0x0001, "Signalling MTU exceeded"),
        (0x0002, "Invalid CID in request"),
    ])

    public static let infoType = ValueNames([
        (0x0001, "Connectionless MTU"),
        (0x0002, "Extended Features Mask"),
        (0x0003, "Fixed Channels Supported"),
    ])

    public static let infoResult = ValueNames([(0x0000, "Success"), (0x0001, "Not Supported")])

    public static let configResult = ValueNames([
        (0x0000, "Success"),
        (0x0001, "Failure - unacceptable parameters"),
        (0x0002, "Failure - rejected (no reason provided)"),
        (0x0003, "Failure - unknown options"),
        (0x0004, "Pending"),
        (0x0005, "Failure - flow spec rejected"),
    ])

    public static let optionType = ValueNames(lookup: { v in
        switch v & 0x7F {
        case 0x01: "Maximum Transmission Unit"
        case 0x02: "Flush Timeout"
        case 0x03: "Quality of Service"
        case 0x04: "Retransmission and Flow Control"
        case 0x05: "Frame Check Sequence"
        case 0x06: "Extended Flow Specification"
        case 0x07: "Extended Window Size"
        default: nil
        }
    })

    public static let mode = ValueNames([
        (0x00, "Basic Mode"),
        (0x01, "Retransmission Mode"),
        (0x02, "Flow Control Mode"),
        (0x03, "Enhanced Retransmission Mode"),
        (0x04, "Streaming Mode"),
    ])

    public static let fcsType = ValueNames([(0x00, "No FCS"), (0x01, "16-bit FCS")])

    public static let parameterUpdateResult = ValueNames([
        (0x0000, "Connection Parameters accepted"),
        (0x0001, "Connection Parameters rejected"),
    ])

    /// Results of the LE Credit Based Connection Response (0x15).
    public static let leResult = ValueNames([
        (0x0000, "Connection successful"),
        (0x0002, "Connection refused - SPSM not supported"),
        (0x0004, "Connection refused - no resources available"),
        (0x0005, "Connection refused - insufficient authentication"),
        (0x0006, "Connection refused - insufficient authorization"),
        (0x0007, "Connection refused - encryption key size too short"),
        (0x0008, "Connection refused - insufficient encryption"),
        (0x0009, "Connection refused - invalid Source CID"),
        (0x000A, "Connection refused - Source CID already allocated"),
        (0x000B, "Connection refused - unacceptable parameters"),
    ])

    /// Results of the Enhanced Credit Based Connection Response (0x18).
    public static let ecfcResult = ValueNames([
        (0x0000, "All connections successful"),
        (0x0002, "All connections refused - SPSM not supported"),
        (0x0004, "Some connections refused - insufficient resources available"),
        (0x0005, "All connections refused - insufficient authentication"),
        (0x0006, "All connections refused - insufficient authorization"),
        (0x0007, "All connections refused - encryption key size too short"),
        (0x0008, "All connections refused - insufficient encryption"),
        (0x0009, "Some connections refused - invalid Source CID"),
        (0x000A, "Some connections refused - Source CID already allocated"),
        (0x000B, "All connections refused - unacceptable parameters"),
        (0x000C, "All connections refused - invalid parameters"),
        (0x000D, "All connections pending - no further information available"),
        (0x000E, "All connections pending - authentication pending"),
        (0x000F, "All connections pending - authorization pending"),
    ])

    /// Results of the Credit Based Reconfigure Response (0x1A).
    public static let reconfigureResult = ValueNames([
        (0x0000, "Reconfiguration successful"),
        (0x0001, "Reconfiguration failed - reduction in size of MTU not allowed"),
        (0x0002, "Reconfiguration failed - reduction in size of MPS not allowed for more than one channel at a time"),
        (0x0003, "Reconfiguration failed - one or more Destination CIDs invalid"),
        (0x0004, "Reconfiguration failed - other unacceptable parameters"),
    ])

    public static let side = ValueNames([(0, "Unknown"), (1, "Local host"), (2, "Peer")])
    static let publishedVia = ValueNames([(1, "Read"), (2, "Notification"), (3, "Indication"), (4, "Advertising")])

    public static let channelMode = ValueNames([
        (1, "LE Credit Based Flow Control"),
        (2, "Enhanced Credit Based Flow Control"),
        (3, "BR/EDR connection-oriented"),
    ])

    /// Name of a result for the info line.
    static func name(_ names: ValueNames, _ v: UInt16) -> String {
        names.lookup(UInt64(v)) ?? "Result " + Format.hex16(v)
    }
}

/// Text helpers for info lines and expert notes (used only when text is wanted).
enum Format {
    /// `0x0040`.
    static func hex16(_ v: UInt16) -> String { HexText.prefixed(UInt64(v), digits: 4) }

    /// `0x14`.
    static func hex8(_ v: UInt8) -> String { HexText.prefixed(UInt64(v), digits: 2) }

    /// Milliseconds with three decimals, from nanoseconds.
    static func milliseconds(_ nanos: Int64) -> String {
        let us = max(0, nanos / 1000)
        let frac = String(us % 1000)
        return "\(us / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac + " ms"
    }
}
