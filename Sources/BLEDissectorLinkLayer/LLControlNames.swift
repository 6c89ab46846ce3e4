import BLEAssignedNumbers
public import BLEInspectCore

/// Value names of LL control PDU parameters (Core Specification Vol 6 Part B 2.4.2).
enum LLControlNames {
    static let opcodes = ValueNames(LLControlLayouts.all.map { (UInt64($0.opcode), $0.name) })

    /// Error codes (Vol 1 Part F), as the LL_TERMINATE_IND, LL_REJECT_IND and the other PDUs with
    /// an ErrorCode carry them.
    static let errors = ValueNames(ErrorCodes.all)

    /// Link Layer versions (Bluetooth assigned numbers).
    static let versions = ValueNames([
        (0x06, "4.0"), (0x07, "4.1"), (0x08, "4.2"), (0x09, "5.0"), (0x0A, "5.1"), (0x0B, "5.2"), (0x0C, "5.3"),
        (0x0D, "5.4"), (0x0E, "6.0"), (0x0F, "6.1"), (0x10, "6.2"),
    ])

    static let companies = ValueNames(lookup: { v in
        v <= 0xFFFF ? AssignedNumbers.companyName(UInt16(truncatingIfNeeded: v)) : nil
    })

    static let cteTypes = ValueNames([
        (0, "AoA Constant Tone Extension"), (1, "AoD Constant Tone Extension with 1 µs slots"),
        (2, "AoD Constant Tone Extension with 2 µs slots"), (3, "Reserved"),
    ])

    static let framingModes = ValueNames([(0, "Segmentable"), (1, "Unsegmented")])

    /// TxPower of the power control PDUs, in dBm, and its two special values.
    static let txPower = ValueNames([
        (126, "Not managing power levels on this PHY"), (127, "Not available"),
    ])

    static let notAvailable = ValueNames([(127, "Not available")])

    static let enable = ValueNames([(0, "Disabled"), (1, "Enabled")])

    static let csActions = ValueNames([(0, "Remove"), (1, "Create or update")])
    static let csRoles = ValueNames([(0, "Initiator"), (1, "Reflector")])
    static let csModes = ValueNames([(1, "Mode-1"), (2, "Mode-2"), (3, "Mode-3"), (0xFF, "Unused")])
    static let csRTTTypes = ValueNames([
        (0, "RTT AA-only"), (1, "RTT with 32-bit sounding sequence"), (2, "RTT with 96-bit sounding sequence"),
        (3, "RTT with 32-bit random sequence"), (4, "RTT with 64-bit random sequence"),
        (5, "RTT with 96-bit random sequence"), (6, "RTT with 128-bit random sequence"),
    ])
    static let csChannelSelection = ValueNames([(0, "Algorithm #3b"), (1, "Algorithm #3c")])
    static let csShapes = ValueNames([(0, "Hat shape"), (1, "X shape")])

    /// The CS timing indices of LL_CS_CONFIG_REQ: T_IP1 and T_IP2, T_FCS, T_PM.
    static let csTIP = times([10, 20, 30, 40, 50, 60, 80, 145])
    static let csTFCS = times([15, 20, 30, 40, 50, 60, 80, 100, 120, 150])
    static let csTPM = times([10, 20, 40])

    private static func times(_ micros: [Int]) -> ValueNames {
        ValueNames(micros.enumerated().map { (UInt64($0.offset), "\($0.element) µs") })
    }
}
