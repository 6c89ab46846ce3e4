import BLEAssignedNumbers
import BLEInspectCore

/// Names of HCI events, LE Meta subevents, error codes and the other enumerations the HCI
/// dissectors show, from the Core Specification (5.4 and 6.0, Vol 4, Part E §7.7 and Vol 1,
/// Part F).
enum HCIEventNames {
    static func name(_ code: UInt8) -> String { byCode[Int(code)] }

    /// Event names by code ("Unknown" where there is none): an index, not a hash, per frame.
    static let byCode: [String] = byCode(events)

    /// A frame's summary opening in one piece, by direction and event code: "Rcvd Number Of
    /// Completed Packets" at `code`, "Sent …" at 256 + `code`.
    static let summaries: [String] = ["Rcvd ", "Sent "].flatMap { word in byCode.map { word + $0 } }

    /// The same for LE Meta events, by direction and subevent: "Rcvd LE Meta (LE Advertising
    /// Report)".
    static let leMetaSummaries: [String] = ["Rcvd ", "Sent "].flatMap { word in
        subeventByCode.map { word + "LE Meta (" + $0 + ")" }
    }

    /// The index of a summary in `summaries` or `leMetaSummaries` for `code` in `direction`
    /// (events with no direction count as received, as `directionWord` has it).
    static func summaryIndex(_ code: UInt8, _ direction: Direction) -> Int {
        (direction == .hostToController ? 256 : 0) + Int(code)
    }

    /// 256 names by code from a list of (code, name) pairs.
    private static func byCode(_ list: [(UInt64, String)]) -> [String] {
        var names = [String](repeating: "Unknown", count: 256)
        for (code, name) in list where code < 256 { names[Int(code)] = name }
        return names
    }

    static let events: [(UInt64, String)] = [
        (0x01, "Inquiry Complete"),
        (0x02, "Inquiry Result"),
        (0x03, "Connection Complete"),
        (0x04, "Connection Request"),
        (0x05, "Disconnection Complete"),
        (0x06, "Authentication Complete"),
        (0x07, "Remote Name Request Complete"),
        (0x08, "Encryption Change [v1]"),
        (0x09, "Change Connection Link Key Complete"),
        (0x0A, "Link Key Type Changed"),
        (0x0B, "Read Remote Supported Features Complete"),
        (0x0C, "Read Remote Version Information Complete"),
        (0x0D, "QoS Setup Complete"),
        (0x0E, "Command Complete"),
        (0x0F, "Command Status"),
        (0x10, "Hardware Error"),
        (0x11, "Flush Occurred"),
        (0x12, "Role Change"),
        (0x13, "Number Of Completed Packets"),
        (0x14, "Mode Change"),
        (0x15, "Return Link Keys"),
        (0x16, "PIN Code Request"),
        (0x17, "Link Key Request"),
        (0x18, "Link Key Notification"),
        (0x19, "Loopback Command"),
        (0x1A, "Data Buffer Overflow"),
        (0x1B, "Max Slots Change"),
        (0x1C, "Read Clock Offset Complete"),
        (0x1D, "Connection Packet Type Changed"),
        (0x1E, "QoS Violation"),
        (0x1F, "Page Scan Mode Change"),
        (0x20, "Page Scan Repetition Mode Change"),
        (0x21, "Flow Specification Complete"),
        (0x22, "Inquiry Result with RSSI"),
        (0x23, "Read Remote Extended Features Complete"),
        (0x2C, "Synchronous Connection Complete"),
        (0x2D, "Synchronous Connection Changed"),
        (0x2E, "Sniff Subrating"),
        (0x2F, "Extended Inquiry Result"),
        (0x30, "Encryption Key Refresh Complete"),
        (0x31, "IO Capability Request"),
        (0x32, "IO Capability Response"),
        (0x33, "User Confirmation Request"),
        (0x34, "User Passkey Request"),
        (0x35, "Remote OOB Data Request"),
        (0x36, "Simple Pairing Complete"),
        (0x38, "Link Supervision Timeout Changed"),
        (0x39, "Enhanced Flush Complete"),
        (0x3B, "User Passkey Notification"),
        (0x3C, "Keypress Notification"),
        (0x3D, "Remote Host Supported Features Notification"),
        (0x3E, "LE Meta"),
        (0x40, "Physical Link Complete"),
        (0x41, "Channel Selected"),
        (0x42, "Disconnection Physical Link Complete"),
        (0x43, "Physical Link Loss Early Warning"),
        (0x44, "Physical Link Recovery"),
        (0x45, "Logical Link Complete"),
        (0x46, "Disconnection Logical Link Complete"),
        (0x47, "Flow Spec Modify Complete"),
        (0x48, "Number Of Completed Data Blocks"),
        (0x49, "AMP Start Test"),
        (0x4A, "AMP Test End"),
        (0x4B, "AMP Receiver Report"),
        (0x4C, "Short Range Mode Change Complete"),
        (0x4D, "AMP Status Change"),
        (0x4E, "Triggered Clock Capture"),
        (0x4F, "Synchronization Train Complete"),
        (0x50, "Synchronization Train Received"),
        (0x51, "Connectionless Peripheral Broadcast Receive"),
        (0x52, "Connectionless Peripheral Broadcast Timeout"),
        (0x53, "Truncated Page Complete"),
        (0x54, "Peripheral Page Response Timeout"),
        (0x55, "Connectionless Peripheral Broadcast Channel Map Change"),
        (0x56, "Inquiry Response Notification"),
        (0x57, "Authenticated Payload Timeout Expired"),
        (0x58, "SAM Status Change"),
        (0x59, "Encryption Change [v2]"),
        (0xFF, "Vendor-Specific"),
    ]

    static func subeventName(_ code: UInt8) -> String { subeventByCode[Int(code)] }

    static let subeventByCode: [String] = byCode(subevents)

    static let subevents: [(UInt64, String)] = [
        (0x01, "LE Connection Complete"),
        (0x02, "LE Advertising Report"),
        (0x03, "LE Connection Update Complete"),
        (0x04, "LE Read Remote Features Complete"),
        (0x05, "LE Long Term Key Request"),
        (0x06, "LE Remote Connection Parameter Request"),
        (0x07, "LE Data Length Change"),
        (0x08, "LE Read Local P-256 Public Key Complete"),
        (0x09, "LE Generate DHKey Complete"),
        (0x0A, "LE Enhanced Connection Complete [v1]"),
        (0x0B, "LE Directed Advertising Report"),
        (0x0C, "LE PHY Update Complete"),
        (0x0D, "LE Extended Advertising Report"),
        (0x0E, "LE Periodic Advertising Sync Established [v1]"),
        (0x0F, "LE Periodic Advertising Report [v1]"),
        (0x10, "LE Periodic Advertising Sync Lost"),
        (0x11, "LE Scan Timeout"),
        (0x12, "LE Advertising Set Terminated"),
        (0x13, "LE Scan Request Received"),
        (0x14, "LE Channel Selection Algorithm"),
        (0x15, "LE Connectionless IQ Report"),
        (0x16, "LE Connection IQ Report"),
        (0x17, "LE CTE Request Failed"),
        (0x18, "LE Periodic Advertising Sync Transfer Received [v1]"),
        (0x19, "LE CIS Established [v1]"),
        (0x1A, "LE CIS Request"),
        (0x1B, "LE Create BIG Complete"),
        (0x1C, "LE Terminate BIG Complete"),
        (0x1D, "LE BIG Sync Established"),
        (0x1E, "LE BIG Sync Lost"),
        (0x1F, "LE Request Peer SCA Complete"),
        (0x20, "LE Path Loss Threshold"),
        (0x21, "LE Transmit Power Reporting"),
        (0x22, "LE BIGInfo Advertising Report"),
        (0x23, "LE Subrate Change"),
        (0x24, "LE Periodic Advertising Sync Established [v2]"),
        (0x25, "LE Periodic Advertising Report [v2]"),
        (0x26, "LE Periodic Advertising Sync Transfer Received [v2]"),
        (0x27, "LE Periodic Advertising Subevent Data Request"),
        (0x28, "LE Periodic Advertising Response Report"),
        (0x29, "LE Enhanced Connection Complete [v2]"),
        (0x2A, "LE CIS Established [v2]"),
        (0x2B, "LE Read All Remote Features Complete"),
        (0x2C, "LE CS Read Remote Supported Capabilities Complete"),
        (0x2D, "LE CS Read Remote FAE Table Complete"),
        (0x2E, "LE CS Security Enable Complete"),
        (0x2F, "LE CS Config Complete"),
        (0x30, "LE CS Procedure Enable Complete"),
        (0x31, "LE CS Subevent Result"),
        (0x32, "LE CS Subevent Result Continue"),
        (0x33, "LE CS Test End Complete"),
        (0x34, "LE Monitored Advertisers Report"),
        (0x35, "LE Frame Space Update Complete"),
    ]

    /// HCI error codes (Vol 1, Part F), used by status and reason parameters.
    static let errors: [(UInt64, String)] = ErrorCodes.all

    static let errorTable: [UInt8: String] = Dictionary(uniqueKeysWithValues: errors.map { (UInt8($0.0), $0.1) })

    static func errorName(_ code: UInt8) -> String { errorTable[code] ?? "Unknown" }
}

/// Value names of HCI parameters.
enum HCIValueNames {
    static let errors = ValueNames(HCIEventNames.errors)
    static let opcode = ValueNames(lookup: { HCICommandNames.name(UInt16(truncatingIfNeeded: $0)) })
    static let ogf = ValueNames(HCICommandNames.groups)
    static let eventCode = ValueNames(lookup: { HCIEventNames.name(UInt8(truncatingIfNeeded: $0)) })
    static let subevent = ValueNames(lookup: { HCIEventNames.subeventName(UInt8(truncatingIfNeeded: $0)) })

    static let h4Type = ValueNames([
        (0x01, "HCI Command"), (0x02, "ACL Data"), (0x03, "SCO Data"), (0x04, "HCI Event"), (0x05, "ISO Data"),
    ])
    static let h4Direction = ValueNames([(0x00, "Sent"), (0x01, "Rcvd")])

    static let addressType = ValueNames([
        (0x00, "Public Device Address"),
        (0x01, "Random Device Address"),
        (0x02, "Public Identity Address"),
        (0x03, "Random (Static) Identity Address"),
        (0xFF, "Anonymous (No Address Provided)"),
    ])
    static let ownAddressType = ValueNames([
        (0x00, "Public Device Address"),
        (0x01, "Random Device Address"),
        (0x02, "Resolvable Private Address or Public Address"),
        (0x03, "Resolvable Private Address or Random Address"),
    ])
    static let identityAddressType = ValueNames([
        (0x00, "Public Identity Address"), (0x01, "Random (Static) Identity Address"),
    ])
    static let advertisingType = ValueNames([
        (0x00, "Connectable and Scannable Undirected (ADV_IND)"),
        (0x01, "Connectable High Duty Cycle Directed (ADV_DIRECT_IND)"),
        (0x02, "Scannable Undirected (ADV_SCAN_IND)"),
        (0x03, "Non-Connectable Undirected (ADV_NONCONN_IND)"),
        (0x04, "Connectable Low Duty Cycle Directed (ADV_DIRECT_IND)"),
    ])
    static let advertisingReportType = ValueNames([
        (0x00, "Connectable and Scannable Undirected (ADV_IND)"),
        (0x01, "Connectable Directed (ADV_DIRECT_IND)"),
        (0x02, "Scannable Undirected (ADV_SCAN_IND)"),
        (0x03, "Non-Connectable Undirected (ADV_NONCONN_IND)"),
        (0x04, "Scan Response (SCAN_RSP)"),
    ])
    static let dataStatus = ValueNames([
        (0x00, "Complete"), (0x01, "Incomplete, more data to come"), (0x02, "Incomplete, data truncated"),
        (0x03, "Reserved"),
    ])
    static let periodicDataStatus = ValueNames([
        (0x00, "Complete"), (0x01, "Incomplete, more data to come"), (0x02, "Incomplete, data truncated"),
        (0xFF, "Failed to receive an AUX_SYNC_SUBEVENT_IND PDU"),
    ])
    static let advertisingFilterPolicy = ValueNames([
        (0x00, "Process scan and connection requests from all devices"),
        (0x01, "Process connection requests from all devices, scan requests only from the Filter Accept List"),
        (0x02, "Process scan requests from all devices, connection requests only from the Filter Accept List"),
        (0x03, "Process scan and connection requests only from the Filter Accept List"),
    ])
    static let scanFilterPolicy = ValueNames([
        (0x00, "Basic unfiltered"),
        (0x01, "Basic filtered (Filter Accept List)"),
        (0x02, "Extended unfiltered"),
        (0x03, "Extended filtered (Filter Accept List)"),
    ])
    static let initiatorFilterPolicy = ValueNames([
        (0x00, "Use the peer address, not the Filter Accept List"),
        (0x01, "Use the Filter Accept List"),
        (0x02, "Use decisions, not the Filter Accept List"),
        (0x03, "Use the Filter Accept List and decisions"),
    ])
    static let scanType = ValueNames([(0x00, "Passive"), (0x01, "Active")])
    static let enable = ValueNames([(0x00, "Disabled"), (0x01, "Enabled")])
    static let filterDuplicates = ValueNames([
        (0x00, "Disabled"), (0x01, "Enabled"), (0x02, "Enabled, reset for each scan period"),
    ])
    static let role = ValueNames([(0x00, "Central"), (0x01, "Peripheral")])
    static let clockAccuracy = ValueNames([
        (0x00, "500 ppm"), (0x01, "250 ppm"), (0x02, "150 ppm"), (0x03, "100 ppm"), (0x04, "75 ppm"),
        (0x05, "50 ppm"), (0x06, "30 ppm"), (0x07, "20 ppm"),
    ])
    static let phy = ValueNames([
        (0x00, "No packets on the secondary advertising physical channel"), (0x01, "LE 1M"), (0x02, "LE 2M"),
        (0x03, "LE Coded"),
    ])
    static let advertisingPHY = ValueNames([
        (0x01, "LE 1M"), (0x02, "LE 2M"), (0x03, "LE Coded (S=8)"), (0x04, "LE Coded (S=2)"),
    ])
    static let phyOptions = ValueNames([
        (0x00, "No preferred coding"), (0x01, "Prefers S=2 coding"), (0x02, "Prefers S=8 coding"),
    ])
    static let dataOperation = ValueNames([
        (0x00, "Intermediate fragment"),
        (0x01, "First fragment"),
        (0x02, "Last fragment"),
        (0x03, "Complete data"),
        (0x04, "Unchanged data (Advertising DID update only)"),
    ])
    static let fragmentPreference = ValueNames([
        (0x00, "The Controller may fragment all data"), (0x01, "The Controller should not fragment"),
    ])
    static let linkType = ValueNames([(0x00, "SCO"), (0x01, "ACL"), (0x02, "eSCO")])
    static let encryptionEnabled = ValueNames([
        (0x00, "Off"),
        (0x01, "On (E0 for BR/EDR, AES-CCM for LE)"),
        (0x02, "On (AES-CCM for BR/EDR)"),
    ])
    static let coreVersion = ValueNames([
        (0x00, "1.0b"), (0x01, "1.1"), (0x02, "1.2"), (0x03, "2.0 + EDR"), (0x04, "2.1 + EDR"),
        (0x05, "3.0 + HS"), (0x06, "4.0"), (0x07, "4.1"), (0x08, "4.2"), (0x09, "5.0"), (0x0A, "5.1"),
        (0x0B, "5.2"), (0x0C, "5.3"), (0x0D, "5.4"), (0x0E, "6.0"), (0x0F, "6.1"),
    ])
    static let channelSelection = ValueNames([(0x00, "Algorithm #1"), (0x01, "Algorithm #2")])
    static let aclPB = ValueNames([
        (0x00, "First Non-automatically-flushable Packet"),
        (0x01, "Continuing Fragment"),
        (0x02, "First Automatically Flushable Packet"),
        (0x03, "Complete L2CAP PDU (deprecated)"),
    ])
    static let aclBC = ValueNames([
        (0x00, "Point-To-Point"), (0x01, "BR/EDR Broadcast"), (0x02, "Reserved"), (0x03, "Reserved"),
    ])
    static let isoPB = ValueNames([
        (0x00, "First fragment of a fragmented SDU"),
        (0x01, "Continuation fragment of a fragmented SDU"),
        (0x02, "Complete SDU"),
        (0x03, "Last fragment of a fragmented SDU"),
    ])
    static let isoStatus = ValueNames([
        (0x00, "Valid data"), (0x01, "Possibly invalid data"), (0x02, "Part(s) of the SDU were lost"),
    ])
    static let scoStatus = ValueNames([
        (0x00, "Correctly received data"), (0x01, "Possibly invalid data"), (0x02, "No data received"),
        (0x03, "Data partially lost"),
    ])
    static let ioCapability = ValueNames([
        (0x00, "DisplayOnly"), (0x01, "DisplayYesNo"), (0x02, "KeyboardOnly"), (0x03, "NoInputNoOutput"),
    ])
    static let keyType = ValueNames([
        (0x00, "Combination Key"), (0x03, "Debug Combination Key"),
        (0x04, "Unauthenticated Combination Key generated from P-192"),
        (0x05, "Authenticated Combination Key generated from P-192"), (0x06, "Changed Combination Key"),
        (0x07, "Unauthenticated Combination Key generated from P-256"),
        (0x08, "Authenticated Combination Key generated from P-256"),
    ])
    static let privacyMode = ValueNames([(0x00, "Network Privacy Mode"), (0x01, "Device Privacy Mode")])
    static let currentMode = ValueNames([(0x00, "Active"), (0x01, "Hold"), (0x02, "Sniff")])
    static let scanEnable = ValueNames([
        (0x00, "No scans enabled"), (0x01, "Inquiry scan enabled, page scan disabled"),
        (0x02, "Inquiry scan disabled, page scan enabled"), (0x03, "Inquiry scan and page scan enabled"),
    ])
}
