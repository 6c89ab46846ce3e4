public import BLEInspectCore
import BLEInspectSession

/// The fields of `TestRealModule`: a real field and integer fields with units, as a user's
/// plugin declares them (`temperature: int16, scale 0.01, unit °C`).
public enum TestRealField: UInt16, FieldSet {
    case temperature, interval, mode, offset, raw

    /// The unit of `acme.raw`: it holds an ESC, which every renderer must escape.
    public static let hostileUnit = "\u{1B}[31mU"

    public static let layer = FieldDescriptor("acme", "Acme Sensor", .layer, short: "ACME")

    public var descriptor: FieldDescriptor {
        switch self {
        case .temperature: FieldDescriptor("acme.temp", "Temperature", .real, unit: "°C")
        case .interval: FieldDescriptor("acme.interval", "Interval", .unsigned(bits: 16), unit: "ms")
        case .mode:
            FieldDescriptor(
                "acme.mode",
                "Mode",
                .unsigned(bits: 8),
                names: ValueNames([(0, "Off"), (1, "On")]),
                unit: "level"
            )
        case .offset: FieldDescriptor("acme.offset", "Offset", .signed(bits: 8), help: "Signed trim", unit: "dB")
        case .raw: FieldDescriptor("acme.raw", "Raw Reading", .real, unit: Self.hostileUnit)
        }
    }
}

/// Manufacturer data of the test company 0xFFFE: int16 temperature in hundredths of a degree,
/// uint16 interval, uint8 mode, int8 offset and a little-endian IEEE double, all little-endian.
struct TestRealDissector: Dissector {
    let f: Fields<TestRealField>

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        var start = r.offset
        let hundredths = Int16(bitPattern: try r.readUInt16())
        // Divided, not multiplied by 0.01: the quotient is the double nearest the exact value,
        // the same one `Double("23.45")` gives, so `acme.temp == 23.45` holds.
        c.tree.add(f[.temperature], .real(Double(hundredths) / 100), start..<r.offset, source: r.source)
        try c.addUInt16(f[.interval], &r)
        try c.addUInt8(f[.mode], &r)
        try c.addInt8(f[.offset], &r)
        start = r.offset
        let bits = try r.readUInt64()
        c.tree.add(f[.raw], .real(Double(bitPattern: bits)), start..<r.offset, source: r.source)
        c.tree.close()
    }
}

/// A test-only module with a real field and integer fields with units, bound to the manufacturer
/// data of company 0xFFFE, as a user's plugin would be.
public enum TestRealModule: DissectorModule {
    public static let name = "test-real"
    public static let company: UInt16 = 0xFFFE

    public static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(TestRealField.self)
        registry.bind(TestRealDissector(f: f), to: StandardTables.companyID, key: company, label: "Acme test sensor")
    }

    /// The standard modules and this one.
    public static let registry: DissectorRegistry = {
        do {
            return try RegistryBuilder.build(modules: StandardModules.builtIn + [TestRealModule.self])
        } catch {
            fatalError("the test registry does not build: \(error)")
        }
    }()

    /// An LE Advertising Report whose one AD structure is manufacturer data of the test company.
    public static func advert(
        temperature: Int16 = 2345,
        interval: UInt16 = 500,
        mode: UInt8 = 1,
        offset: Int8 = -3,
        raw: Double = 1013.2,
        number: Int = 1
    ) -> CapturedFrame {
        var payload: [UInt8] = []
        payload += [UInt8(truncatingIfNeeded: temperature), UInt8(truncatingIfNeeded: temperature >> 8)]
        payload += [UInt8(truncatingIfNeeded: interval), UInt8(truncatingIfNeeded: interval >> 8)]
        payload += [mode, UInt8(bitPattern: offset)]
        payload += (0..<8).map { UInt8(truncatingIfNeeded: raw.bitPattern >> (8 * UInt64($0))) }
        let ad: [UInt8] = [UInt8(payload.count + 3), 0xFF, 0xFE, 0xFF] + payload
        let report: [UInt8] =
            [0x02, 0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, UInt8(ad.count)] + ad + [0xC0]
        let bytes: [UInt8] = [0x3E, UInt8(report.count)] + report
        return CapturedFrame(
            number: number,
            timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: .controllerToHost,
            controllerIndex: 0,
            kind: .hciEvent,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
    }
}
