import BLECaptureTestSupport
import BLEDissectorAdvertising
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// Feeds advertising-data blocks straight into `StandardTables.advertisingData`, as the HCI module
/// does with the data of a report or a Set Data command.
enum AD {
    static let registry = Dissect.registry()

    /// Dissects one AD block (hex). The frame's bytes are the block, so ranges index it.
    static func block(_ hex: String, state: CaptureState = CaptureState()) -> FrameSnapshot {
        block(Hex.bytes(hex), state: state)
    }

    static func block(_ bytes: [UInt8], state: CaptureState = CaptureState()) -> FrameSnapshot {
        PDUFeeder(registry: registry, state: state).feed(
            bytes,
            to: StandardTables.advertisingData.id,
            key: DissectorKey(0),
            direction: .controllerToHost,
            kind: .hciEvent
        )
    }

    /// The field id of a filter name (fails the test when unknown).
    static func id(_ name: String) -> FieldID? { registry.field(named: name) }

    /// The value name the descriptor of `field` gives `value`.
    static func name(_ field: String, _ value: UInt64) -> String? {
        guard let id = registry.field(named: field) else { return nil }
        return registry.descriptor(id).valueNames?.lookup(value)
    }

    /// The offsets at which the AD structures of a well-formed block start, and its end.
    static func boundaries(_ bytes: [UInt8]) -> [Int] {
        var out = [0]
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 { break }
            i += 1 + length
            out.append(min(i, bytes.count))
        }
        return out
    }
}

/// A UUID from text, for expectations.
func uuid(_ text: String) -> BluetoothUUID {
    guard let u = BluetoothUUID(text) else {
        Issue.record("bad UUID literal \(text)")
        return BluetoothUUID(uuid16: 0)
    }
    return u
}
