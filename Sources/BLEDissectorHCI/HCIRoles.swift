import BLEInspectCore

/// The roles (`KeyRole`) of the HCI commands and LE subevents that views follow across frames:
/// the advertising commands a host sends, and the events that report adverts and connections.
/// Views ask the registry for them (`DissectorRegistry.roles(in:)`) instead of keeping opcodes.
enum HCIRoles {
    static let commands: [(UInt16, KeyRole)] = [
        (0x0C03, .controllerReset),  // Reset
        (0x2006, .advertisingParameters(extended: false)),  // LE Set Advertising Parameters
        (0x2008, .advertisingData(scanResponse: false, extended: false)),  // LE Set Advertising Data
        (0x2009, .advertisingData(scanResponse: true, extended: false)),  // LE Set Scan Response Data
        (0x200A, .advertisingEnable(extended: false)),  // LE Set Advertising Enable
        (0x2036, .advertisingParameters(extended: true)),  // LE Set Extended Advertising Parameters [v1]
        (0x207F, .advertisingParameters(extended: true)),  // LE Set Extended Advertising Parameters [v2]
        (0x2037, .advertisingData(scanResponse: false, extended: true)),  // LE Set Extended Advertising Data
        (0x2038, .advertisingData(scanResponse: true, extended: true)),  // LE Set Extended Scan Response Data
        (0x2039, .advertisingEnable(extended: true)),  // LE Set Extended Advertising Enable
        (0x203C, .removeAdvertisingSet),  // LE Remove Advertising Set
        (0x203D, .clearAdvertisingSets),  // LE Clear Advertising Sets
    ]

    static let leSubevents: [(UInt8, KeyRole)] = [
        (0x01, .connectionComplete),  // LE Connection Complete
        (0x0A, .connectionComplete),  // LE Enhanced Connection Complete
        (0x29, .connectionComplete),  // LE Enhanced Connection Complete v2
        (0x02, .advertisingReport(extended: false)),  // LE Advertising Report
        (0x0D, .advertisingReport(extended: true)),  // LE Extended Advertising Report
        (0x12, .advertisingSetTerminated),  // LE Advertising Set Terminated
    ]

    static func register(_ registry: inout RegistryBuilder) {
        for (opcode, role) in commands {
            registry.declareRole(role, table: StandardTables.hciCommand, key: opcode)
        }
        for (code, role) in leSubevents {
            registry.declareRole(role, table: StandardTables.leMetaSubevent, key: code)
        }
    }
}
