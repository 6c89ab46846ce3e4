import BLEAssignedNumbers
import BLEInspectCore

/// The SIG names this module looks up, in one place: UUID names and company names from the
/// generated `BLEAssignedNumbers` tables.
enum SIGNames {
    static func uuid16(_ value: UInt16) -> String? { AssignedNumbers.uuid16Name(value) }
    static func uuid128(_ uuid: BluetoothUUID) -> String? {
        AssignedNumbers.uuid128Name(high: uuid.high, low: uuid.low)
    }
    static func company(_ id: UInt16) -> String? { AssignedNumbers.companyName(id) }
}
