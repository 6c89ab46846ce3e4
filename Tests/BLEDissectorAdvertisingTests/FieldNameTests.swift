import BLECaptureTestSupport
import BLEDissectorAdvertising
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The module's field names against tshark's (`tshark -G fields`): same names, same types and
/// masks, except the documented differences below.
@Suite struct FieldNameTests {
    /// Every descriptor this module registers, layers included.
    static let ours: [FieldDescriptor] = {
        func all<F: FieldSet>(_: F.Type) -> [FieldDescriptor] { [F.layer] + F.allCases.map(\.descriptor) }
        return all(ADField.self) + all(PBADVField.self) + all(MeshBeaconField.self) + all(MeshNetworkField.self)
            + all(AppleField.self) + all(IBeaconField.self) + all(EddystoneField.self) + all(SwiftPairField.self)
            + all(FastPairField.self) + all(GAENField.self) + all(AltBeaconField.self)
    }()

    /// Where we deliberately differ from tshark 4.0.17, and why.
    static let typeExceptions: [String: String] = [
        // Flag bits are booleans here; Wireshark declares them FT_UINT8 with a mask.
        "btcommon.eir_ad.entry.flags.le_bredr_support_host": "boolean flag bit",
        "btcommon.eir_ad.entry.flags.le_bredr_support_controller": "boolean flag bit",
        "btcommon.eir_ad.entry.flags.bredr_not_supported": "boolean flag bit",
        "btcommon.eir_ad.entry.flags.le_general_discoverable_mode": "boolean flag bit",
        "btcommon.eir_ad.entry.flags.le_limited_discoverable_mode": "boolean flag bit",
        "btcommon.eir_ad.entry.oob_flags.oob_le_bredr_support": "boolean flag bit",
        "btcommon.eir_ad.entry.oob_flags.oob_le_supported_host": "boolean flag bit",
        "btcommon.eir_ad.entry.oob_flags.oob_data_present": "boolean flag bit",
        // 128-bit UUIDs are UUID values (filterable as UUIDs, shown with names); Wireshark keeps
        // byte strings in display order.
        "btcommon.eir_ad.entry.uuid_128": "uuid value",
        "btcommon.eir_ad.entry.custom_uuid_128": "uuid value",
        "bluetooth.apple.ibeacon.uuid128": "uuid value",
        // The padding carries its octets here; Wireshark's is a text-only item.
        "btcommon.eir_ad.unused": "padding octets",
        // Multi-bit or named values that Wireshark declares boolean.
        "btcommon.eir_ad.entry.3ds.reserved": "4-bit reserved value",
        "btcommon.eir_ad.entry.biginfo.big_offset_units": "named unit (30 µs / 300 µs)",
        "btcommon.eir_ad.entry.biginfo.framing": "named value (unframed / framed)",
    ]

    /// Masks that differ: Wireshark's IPS reserved mask 0xC0 overlaps the Location Name bit 0x40.
    static let maskExceptions: Set<String> = ["btcommon.eir_ad.entry.ips.flags.reserved"]

    struct TsharkField {
        let type: String
        let mask: UInt64
    }

    static func tsharkFields() throws -> [String: TsharkField] {
        guard let tshark = Run.tshark else { return [:] }
        let result = try Run.program(tshark, ["-G", "fields"])
        var out: [String: TsharkField] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if cols.first == "P", cols.count >= 3 {
                out[cols[2]] = TsharkField(type: "FT_PROTOCOL", mask: 0)
            } else if cols.first == "F", cols.count >= 7 {
                let mask = UInt64(cols[6].dropFirst(2), radix: 16) ?? 0
                out[cols[2]] = TsharkField(type: cols[3], mask: mask)
            }
        }
        return out
    }

    static func compatible(_ kind: FieldKind, _ type: String) -> Bool {
        switch kind {
        case .layer: type == "FT_PROTOCOL" || type == "FT_NONE"
        case .group: type == "FT_NONE"
        case .unsigned(let bits): type == "FT_UINT\(bits)"
        case .signed(let bits): type == "FT_INT\(bits)"
        case .boolean: type == "FT_BOOLEAN"
        case .bytes: type == "FT_BYTES"
        case .string: type == "FT_STRING"
        case .address: type == "FT_ETHER"
        case .uuid: type == "FT_GUID"
        default: false
        }
    }

    @Test func namesAreUnique() {
        let names = Self.ours.map(\.abbrev)
        #expect(Set(names).count == names.count)
        #expect(AD.registry.field(named: "adv.name") == AD.registry.field(named: "btcommon.eir_ad.entry.device_name"))
        #expect(AD.registry.field(named: "adv.uuid") != nil)
    }

    @Test(.enabled(if: Run.tshark != nil)) func matchTshark() throws {
        let tshark = try Self.tsharkFields()
        var typeMismatches: Set<String> = []
        var maskMismatches: Set<String> = []
        var missing: [String] = []
        for d in Self.ours {
            guard let theirs = tshark[d.abbrev] else {
                // Our own names never squat Wireshark's btcommon.eir_ad namespace.
                if d.abbrev.hasPrefix("btcommon.") { missing.append(d.abbrev) }
                continue
            }
            if !Self.compatible(d.kind, theirs.type) { typeMismatches.insert(d.abbrev) }
            if d.kind != .layer, theirs.mask != 0, theirs.mask != d.bitmask { maskMismatches.insert(d.abbrev) }
        }
        #expect(missing.isEmpty, "not in tshark: \(missing)")
        #expect(typeMismatches == Set(Self.typeExceptions.keys))
        #expect(maskMismatches == Self.maskExceptions)
        // The Wireshark names the brief asks for are all here.
        for name in [
            "btcommon.eir_ad.entry.length", "btcommon.eir_ad.entry.type", "btcommon.eir_ad.entry.uuid_16",
            "btcommon.eir_ad.entry.uuid_32", "btcommon.eir_ad.entry.uuid_128", "btcommon.eir_ad.entry.device_name",
            "btcommon.eir_ad.entry.power_level", "btcommon.eir_ad.entry.company_id", "btcommon.eir_ad.entry.data",
            "btcommon.eir_ad.entry.appearance", "btcommon.eir_ad.entry.le_role", "btcommon.eir_ad.entry.uri",
            "bluetooth.apple.ibeacon.major", "bluetooth.apple.ibeacon.minor",
        ] {
            #expect(tshark[name] != nil && Self.ours.contains { $0.abbrev == name }, "\(name)")
        }
    }
}
