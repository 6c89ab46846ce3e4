/// The per-type rules of the Core Specification and its Supplement (§1) over one advert's
/// advertising data and scan response, whatever produced them: a plan's layout or captured bytes.
enum BlockRules {
    /// Findings for the structures of `advertising` and `scanResponse`. `extended` enables the
    /// rule that Appearance may not be in both; `connectable` (when known) the Flags rule.
    static func check(
        advertising: [ADStructure],
        scanResponse: [ADStructure],
        extended: Bool,
        connectable: Bool?
    ) -> [Finding] {
        var findings = check(block: advertising, name: "advertising data", isScanResponse: false)
        findings += check(block: scanResponse, name: "scan response", isScanResponse: true)
        // CSS: Appearance "shall not appear in both the AD and SRD of the same extended
        // advertising interval" (§1.5).
        if extended && advertising.contains(where: { $0.type == ADType.appearance })
            && scanResponse.contains(where: { $0.type == ADType.appearance })
        {
            findings.append(
                Rules.adAppearanceDuplicate.finding(
                    "Appearance is in both the advertising data and the scan response of an extended advert"
                )
            )
        }
        // CSS Part A §1.3: Flags "shall be included when any of the Flag bits are non-zero and the
        // advertising packet is connectable" (§1.4).
        if connectable == true && !advertising.isEmpty && !advertising.contains(where: { $0.type == ADType.flags }) {
            findings.append(
                Rules.adFlagsMissing.finding(
                    "the advert is connectable but its advertising data has no Flags; they are required "
                        + "whenever any Flags bit (e.g. LE General Discoverable) is set"
                )
            )
        }
        return findings
    }

    private static func check(block: [ADStructure], name: String, isScanResponse: Bool) -> [Finding] {
        var findings: [Finding] = []
        var flagsCount = 0
        var appearanceCount = 0
        var listsPerWidth: [Int: Int] = [:]
        for s in block {
            let label = "\(name): \(typeLabel(s.type))"
            if s.length > 255 {
                findings.append(
                    Rules.adStructureTooLong.finding(
                        "\(label) needs Length \(s.length) (type + \(s.data.count) data bytes); one AD structure "
                            + "holds at most 254 data bytes"
                    )
                )
            }
            switch s.type {
            case ADType.flags:
                flagsCount += 1
                if isScanResponse {
                    findings.append(
                        Rules.adFlagsInScanResponse.finding(
                            "\(name) carries Flags; they belong only in the advertising data"
                        )
                    )
                }
                if let last = s.data.last, last == 0 {
                    findings.append(
                        Rules.adFlagsTrailingZero.finding(
                            "\(label) ends with a zero octet (\(Quote.hex(s.data))); zero octets after the last "
                                + "non-zero one shall be omitted"
                        )
                    )
                }
                if let first = s.data.first {
                    if first & 0x03 == 0x03 {
                        findings.append(
                            Rules.adFlagsConflict.finding(
                                "\(label) 0x\(Quote.hexByte(first)) sets both LE Limited and LE General "
                                    + "Discoverable Mode; they are mutually exclusive"
                            )
                        )
                    }
                    if first & 0xE0 != 0 {
                        findings.append(
                            Rules.adFlagsReserved.finding(
                                "\(label) 0x\(Quote.hexByte(first)) sets reserved bits 5–7"
                            )
                        )
                    }
                }
            case 0x02...0x07:
                let width = ADType.listWidth(s.type) ?? 16
                listsPerWidth[width, default: 0] += 1
                if s.data.count % width != 0 {
                    findings.append(
                        Rules.adUUIDListLength.finding(
                            "\(label) has \(s.data.count) bytes, not a multiple of \(width)"
                        )
                    )
                }
            case ADType.shortenedName, ADType.completeName:
                if String(validating: s.data, as: UTF8.self) == nil {
                    findings.append(
                        Rules.adNameUTF8.finding("\(label) \(Quote.bytes(s.data)) is not valid UTF-8 (type utf8s)")
                    )
                }
            case ADType.txPower:
                if s.data.count != 1 {
                    findings.append(
                        Rules.adTxPowerLength.finding("\(label) has \(s.data.count) data bytes; it takes exactly 1")
                    )
                }
            case ADType.appearance:
                appearanceCount += 1
                if s.data.count != 2 {
                    findings.append(
                        Rules.adAppearanceLength.finding("\(label) has \(s.data.count) data bytes; it takes exactly 2")
                    )
                }
            case ADType.manufacturer:
                if s.data.count < 2 {
                    findings.append(
                        Rules.adManufacturerShort.finding(
                            "\(label) has \(s.data.count) data bytes; the company identifier alone takes 2"
                        )
                    )
                }
            case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
                let width = ADType.serviceDataWidth(s.type) ?? 2
                if s.data.count < width {
                    findings.append(
                        Rules.adServiceDataShort.finding(
                            "\(label) has \(s.data.count) data bytes; its UUID alone takes \(width)"
                        )
                    )
                }
            default:
                if ADType.name(s.type) == nil {
                    findings.append(
                        Rules.adTypeUnknown.finding(
                            "\(name): AD type 0x\(Quote.hexByte(s.type)) is not in the assigned numbers (reserved or unknown)"
                        )
                    )
                }
            }
        }
        if flagsCount > 1 {
            findings.append(Rules.adFlagsDuplicate.finding("\(name) carries Flags \(flagsCount) times"))
        }
        if appearanceCount > 1 {
            findings.append(Rules.adAppearanceDuplicate.finding("\(name) carries Appearance \(appearanceCount) times"))
        }
        for width in [2, 4, 16] {
            if let count = listsPerWidth[width], count > 1 {
                findings.append(
                    Rules.adUUIDListDuplicate.finding(
                        "\(name) has \(count) lists of \(width * 8)-bit service UUIDs; one list per width is allowed"
                    )
                )
            }
        }
        return findings
    }

    static func typeLabel(_ type: UInt8) -> String {
        ADType.name(type).map { "\($0) (0x\(Quote.hexByte(type)))" } ?? "AD type 0x\(Quote.hexByte(type))"
    }
}
