import BLEAssignedNumbers
import BLEInspectCore

/// Names of UUIDs and appearance values, for value names and one-line summaries.
enum GATTNames {
    /// Apple CoreBluetooth's L2CAP PSM characteristic, ABDD3056-28FA-441D-A470-55A75A52553A: a
    /// little-endian uint16 PSM on which the peripheral accepts LE credit-based connections.
    static let l2capPSMCharacteristic = BluetoothUUID(
        high: 0xABDD_3056_28FA_441D,
        low: 0xA470_55A7_5A52_553A,
        width: 16
    )

    static let primaryService = BluetoothUUID(uuid16: 0x2800)
    static let secondaryService = BluetoothUUID(uuid16: 0x2801)
    static let include = BluetoothUUID(uuid16: 0x2802)
    static let characteristic = BluetoothUUID(uuid16: 0x2803)

    static let uuid16Names = ValueNames(lookup: { v in
        v <= 0xFFFF ? name16(UInt16(truncatingIfNeeded: v)) : nil
    })

    /// The GATT declaration types (Core Vol 3 Part G 3), which the SIG's service, characteristic
    /// and descriptor lists leave out.
    static func declarationName(_ uuid16: UInt16) -> String? {
        switch uuid16 {
        case 0x2800: "Primary Service"
        case 0x2801: "Secondary Service"
        case 0x2802: "Include"
        case 0x2803: "Characteristic"
        default: nil
        }
    }

    /// The name of a 16-bit UUID: a declaration type, or a SIG service, characteristic or descriptor.
    static func name16(_ uuid16: UInt16) -> String? {
        declarationName(uuid16) ?? AssignedNumbers.uuid16Name(uuid16)
    }

    /// The SIG (or known vendor) name of `uuid`, if it has one.
    static func name(_ uuid: BluetoothUUID) -> String? {
        if let short = uuid.uuid16 { return name16(short) }
        if uuid == l2capPSMCharacteristic { return "L2CAP PSM" }
        return AssignedNumbers.uuid128Name(high: uuid.high, low: uuid.low)
    }

    /// The name of `uuid`, or its text form.
    static func display(_ uuid: BluetoothUUID) -> String {
        name(uuid) ?? uuid.description
    }

    /// Appearance categories (Assigned Numbers 2.6.2), by the value's bits 15–6.
    static let appearanceCategoryList: [(UInt64, String)] = [
        (0, "Unknown"), (1, "Phone"), (2, "Computer"), (3, "Watch"), (4, "Clock"), (5, "Display"),
        (6, "Remote Control"), (7, "Eye-glasses"), (8, "Tag"), (9, "Keyring"), (10, "Media Player"),
        (11, "Barcode Scanner"), (12, "Thermometer"), (13, "Heart Rate Sensor"), (14, "Blood Pressure"),
        (15, "Human Interface Device"), (16, "Glucose Meter"), (17, "Running Walking Sensor"), (18, "Cycling"),
        (19, "Control Device"), (20, "Network Device"), (21, "Sensor"), (22, "Light Fixtures"), (23, "Fan"),
        (24, "HVAC"), (25, "Air Conditioning"), (26, "Humidifier"), (27, "Heating"), (28, "Access Control"),
        (29, "Motorized Device"), (30, "Power Device"), (31, "Light Source"), (32, "Window Covering"),
        (33, "Audio Sink"), (34, "Audio Source"), (35, "Motorized Vehicle"), (36, "Domestic Appliance"),
        (37, "Wearable Audio Device"), (38, "Aircraft"), (39, "AV Equipment"), (40, "Display Equipment"),
        (41, "Hearing aid"), (42, "Gaming"), (43, "Signage"), (49, "Pulse Oximeter"), (50, "Weight Scale"),
        (51, "Personal Mobility Device"), (52, "Continuous Glucose Monitor"), (53, "Insulin Pump"),
        (54, "Medication Delivery"), (55, "Spirometer"), (81, "Outdoor Sports Activity"),
    ]

    static let appearanceCategories = ValueNames(appearanceCategoryList)

    /// The category name of an appearance value ("Generic" + category for subcategory 0).
    static func appearanceName(_ value: UInt16) -> String? {
        guard let category = appearanceCategories.lookup(UInt64(value >> 6)) else { return nil }
        if value & 0x3F == 0 { return value == 0 ? "Unknown" : "Generic " + category }
        return category
    }

    static let appearanceNames = ValueNames(lookup: { v in
        v <= 0xFFFF ? appearanceName(UInt16(truncatingIfNeeded: v)) : nil
    })
}
