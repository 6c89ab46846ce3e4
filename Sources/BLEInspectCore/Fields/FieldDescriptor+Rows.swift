// Short forms of `FieldDescriptor.init` for the common kinds, so that a field set's `descriptor`
// switch stays one row per field: `.uint("btatt.handle", "Handle", 16, hex: true)`. Other kinds
// are short already with the initialiser: `FieldDescriptor("btatt.value", "Value", .bytes)`.

extension FieldDescriptor {
    /// An unsigned integer field of `bits` bits, shown in hex or decimal; `mask` selects the bits of the parent value it shows.
    public static func uint(
        _ abbrev: String,
        _ name: String,
        _ bits: UInt8,
        hex: Bool = false,
        names: ValueNames? = nil,
        mask: UInt64 = 0,
        help: String = "",
        unit: String = ""
    ) -> FieldDescriptor {
        FieldDescriptor(
            abbrev,
            name,
            .unsigned(bits: bits),
            base: hex ? .hex : .decimal,
            names: names,
            bitmask: mask,
            help: help,
            unit: unit
        )
    }

    /// A signed integer field of `bits` bits.
    public static func int(
        _ abbrev: String,
        _ name: String,
        _ bits: UInt8,
        names: ValueNames? = nil,
        help: String = "",
        unit: String = ""
    ) -> FieldDescriptor {
        FieldDescriptor(abbrev, name, .signed(bits: bits), names: names, help: help, unit: unit)
    }

    /// One flag bit (or bits) of the parent value: a boolean with its mask.
    public static func flag(_ abbrev: String, _ name: String, _ mask: UInt64, help: String = "") -> FieldDescriptor {
        FieldDescriptor(abbrev, name, .boolean, bitmask: mask, help: help)
    }
}
