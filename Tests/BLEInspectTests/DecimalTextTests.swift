import BLEInspectCore
import BLEInspectRender
import BLEInspectSession
import Testing

/// Numbers, times and addresses are written a machine word at a time, and UUIDs written again
/// are copied; these hold them to the standard library's text and `BluetoothUUID.canonical`.
@Suite("numbers, times, addresses and UUIDs as text")
struct DecimalTextTests {
    static func text(_ value: FieldValue, _ kind: FieldKind, _ formatter: FieldFormatter) -> String {
        var tree = ProtocolTree()
        tree.add(FieldID(0), value, 0..<0)
        let d = FieldDescriptor("test.field", "Test Field", kind)
        return formatter.fieldText(tree.nodes[0], d, texts: []) { [] }
    }

    /// 0, then for each length of 1 to 20 digits its smallest and largest values and a few
    /// between (a deterministic sequence).
    static var values: [UInt64] {
        var out: [UInt64] = [0, UInt64.max]
        var power: UInt64 = 1
        var state: UInt64 = 7
        for _ in 1...19 {
            let next = power &* 10
            out += [power, next &- 1]
            for _ in 0..<20 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                out.append(power &+ (state >> 1) % (next &- power))
            }
            power = next
        }
        return out
    }

    @Test("unsigned and signed decimals")
    func decimals() throws {
        let formatter = FieldFormatter(registry: try StandardModules.registry())
        for v in Self.values {
            #expect(Self.text(.unsigned(v), .unsigned(bits: 64), formatter) == String(v))
            let s = Int64(bitPattern: v)
            #expect(Self.text(.signed(s), .signed(bits: 64), formatter) == String(s))
        }
    }

    @Test("times as seconds with nine decimals")
    func seconds() throws {
        let formatter = FieldFormatter(registry: try StandardModules.registry())
        for v in Self.values {
            let nanos = Int64(bitPattern: v)
            let m = nanos.magnitude
            let fraction = String(m % 1_000_000_000)
            let expected =
                (nanos < 0 ? "-" : "") + "\(m / 1_000_000_000)."
                + String(repeating: "0", count: 9 - fraction.count) + fraction
            #expect(Self.text(.signed(nanos), .relativeTime, formatter) == expected)
        }
    }

    @Test("addresses in lower case")
    func addresses() throws {
        let formatter = FieldFormatter(registry: try StandardModules.registry())
        for v in Self.values {
            let a = BDAddr(rawValue: v & 0xFFFF_FFFF_FFFF)
            #expect(Self.text(.address(a), .address, formatter) == a.description.lowercased())
        }
    }

    @Test("UUIDs written again in one JSON object")
    func repeatedUUIDs() throws {
        let registry = try StandardModules.registry()
        let field = try #require(registry.field(named: "gatt.uuid"))
        let a = BluetoothUUID(high: 0x0002_0001_574F_4F20, low: 0x5370_6865_726F_2121, width: 16)
        let b = BluetoothUUID(high: 0x0002_0003_574F_4F20, low: 0x5370_6865_726F_2121, width: 16)
        let c = BluetoothUUID(high: 0xB1E1_5EC7_0000_4000, low: 0x8000_0000_0000_0001, width: 16)
        // Same high half as `a`, another low half.
        let d = BluetoothUUID(high: a.high, low: 0x5370_6865_726F_2122, width: 16)
        let order = [a, b, b, a, c, a, b, d, a, d]
        var tree = ProtocolTree()
        for u in order { tree.add(field, .uuid(u), 0..<0) }
        let formatter = FieldFormatter(registry: registry)
        let json = JSONFrame.render(CapturedFrame.blank(), tree, registry: registry, formatter: formatter)
        let expected = "\"gatt.uuid\":[" + order.map { "\"\($0.canonical.lowercased())\"" }.joined(separator: ",") + "]"
        #expect(json.contains(expected), "\(json)")
    }
}
