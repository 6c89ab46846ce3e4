import BLEInspectCore

/// CoreBluetooth's `CBPeripheralManager.startAdvertising` on iOS (§2): legacy ADV_IND + SCAN_RSP
/// (§2.10), Flags `02 01 1A` always (§2.3 fact 1), then the service UUID lists, then the local
/// name (§2.3 fact 2), within 31 bytes, so 28 for the app with headers included (§2.4).
enum IOSProfile {
    /// The Flags iOS always sends: LE General Discoverable + simultaneous LE/BR-EDR (§2.3 fact 1).
    static let flagsValue: UInt8 = 0x1A
    /// Legacy AdvData and ScanRspData (§1.2, §2.10).
    static let capacity = 31
    /// At most 8 name bytes in the scan response: 31 − 21 (overflow AD) = 10 with the header
    /// (§2.4 hypothesis, §5.3).
    static let scanResponseNameBytes = 8

    // MARK: Foreground

    /// §2.5, the foreground placement algorithm.
    static func foreground(_ plan: AdvertPlan, options: CheckOptions) -> AdvertResult {
        var findings = commonFindings(plan)
        let flags = AD.flags(flagsValue)
        let name = plan.data.localName.flatMap { $0.isEmpty ? nil : $0 }

        if let beacon = plan.iBeacon {
            return iBeaconForeground(plan, beacon: beacon, name: name, findings: findings)
        }

        // UUIDs in array order; each costs its width, plus 2 for the first of its width (§2.5).
        var budget = capacity - flags.size
        var lists: [Int: [BluetoothUUID]] = [:]
        var overflowed: [BluetoothUUID] = []
        var placements: [UUIDPlacement] = []
        for uuid in plan.data.serviceUUIDs {
            let width = AD.givenWidth(uuid)
            let cost = width + (lists[width] == nil ? 2 : 0)
            if cost <= budget {
                lists[width, default: []].append(uuid)
                budget -= cost
                if !overflowed.isEmpty {
                    findings.append(
                        Rules.iosUUIDPlacementUncertain.finding(
                            "\(Describe.uuidText(uuid)) is placed in the advertising data after an earlier UUID "
                                + "overflowed; whether iOS keeps filling the advertising data after an overflow is "
                                + "not known, so it may overflow too"
                        )
                    )
                }
                placements.append(
                    UUIDPlacement(
                        uuid: uuid,
                        place: .advertisingData,
                        width: width,
                        seenByIOSFilteringScanner: true,
                        seenByOtherScanners: true
                    )
                )
            } else {
                overflowed.append(uuid)
                let bit = OverflowBit(uuid)
                placements.append(inOverflowArea(uuid, bit))
                findings.append(
                    Rules.iosUUIDOverflow.finding(
                        "\(Describe.uuidText(uuid)) does not fit (needs \(cost) bytes, \(budget) left) and goes to "
                            + "the overflow area: only iOS apps scanning for this UUID find it; Android and other "
                            + "scanners, and iOS scanners not filtering on it, do not (\(bitText(bit)))"
                    )
                )
            }
            uuidFindings(uuid, width: width, into: &findings)
        }
        // Complete lists when nothing overflowed, incomplete otherwise (§2.3 fact 4, §2.5 note 3).
        let widths = [2, 4, 16].filter { lists[$0] != nil }
        var advertising = [flags]
        for width in widths {
            advertising.append(AD.uuidList(lists[width] ?? [], width: width, complete: overflowed.isEmpty))
            if !overflowed.isEmpty && width != 16 {
                findings.append(
                    Rules.iosUUIDListTypeUncertain.finding(
                        "the \(width * 8)-bit list is sent as incomplete (0x\(Quote.hexByte(ADType.incompleteList(width: width)))) "
                            + "because a UUID overflowed; iOS has only been seen sending incomplete 128-bit lists"
                    )
                )
            }
        }
        if widths.count > 1 {
            findings.append(
                Rules.iosUUIDMixedWidths.finding(
                    "UUID lists of \(widths.map { "\($0 * 8)" }.joined(separator: ", "))-bit widths: the layout "
                        + "orders them by width; the order iOS uses is not observed"
                )
            )
        }

        // The local name: complete if it fits, else shortened to fill the advertising data (§2.5).
        var scanResponse: [ADStructure] = []
        var outcome: NameOutcome?
        var nameInScanResponse: ADStructure?
        if let name {
            let bytes = Array(name.utf8)
            if 2 + bytes.count <= budget {
                advertising.append(AD.name(bytes, complete: true))
                budget -= 2 + bytes.count
                outcome = NameOutcome(
                    requested: name,
                    onAir: bytes,
                    type: ADType.completeName,
                    placement: .advertisingData
                )
            } else if budget >= 3 {
                let kept = Array(bytes.prefix(budget - 2))
                advertising.append(AD.name(kept, complete: false))
                outcome = NameOutcome(
                    requested: name,
                    onAir: kept,
                    type: ADType.shortenedName,
                    placement: .advertisingData
                )
                findings.append(
                    Rules.iosNameTruncated.finding(
                        "\(Quote.text(name)) → \(Quote.bytes(kept)) (0x08): \(kept.count) of \(bytes.count) name bytes "
                            + "fit in the \(budget) bytes left after Flags (3)"
                            + (widths.isEmpty ? "" : " and the service UUID list(s) (\(capacity - 3 - budget))")
                            + "; scanners see the shortened name"
                    )
                )
                utf8SplitFinding(bytes, kept: kept.count, rule: Rules.iosNameUTF8Split, into: &findings)
                budget = 0
            } else {
                // Fewer than 3 bytes left: the scan response, ≤ 8 bytes (§2.5, UNCERTAIN §5.3).
                let kept = Array(bytes.prefix(scanResponseNameBytes))
                let complete = kept.count == bytes.count
                let structure = AD.name(kept, complete: complete)
                nameInScanResponse = structure
                outcome = NameOutcome(
                    requested: name,
                    onAir: kept,
                    type: structure.type,
                    placement: .scanResponse
                )
                findings.append(
                    Rules.iosNameScanResponse.finding(
                        "only \(budget) bytes are left in the advertising data, too few for a name; iOS probably puts "
                            + "it in the scan response, at most 8 bytes: \(Quote.text(name)) → \(Quote.bytes(kept)) "
                            + "(0x\(Quote.hexByte(structure.type))); this placement has not been observed"
                    )
                )
                if !complete {
                    utf8SplitFinding(bytes, kept: kept.count, rule: Rules.iosNameUTF8Split, into: &findings)
                }
            }
        }

        // The overflow area goes in the scan response in the foreground (§2.3 F1, §2.5).
        var overflow: OverflowLayout?
        if !overflowed.isEmpty {
            let area = overflowArea(overflowed, placement: .scanResponse, offset: 0, options: options)
            scanResponse.append(area.structure)
            overflow = area.layout
            findings += overflowFindings(area.layout.bits, options: options)
        }
        if let nameInScanResponse { scanResponse.append(nameInScanResponse) }

        return result(
            plan,
            profile: .iosForeground,
            advertising: advertising,
            scanResponse: scanResponse,
            overflow: overflow,
            name: outcome,
            uuids: placements,
            findings: findings
        )
    }

    /// `CLBeaconRegion.peripheralData` through `startAdvertising`: Flags 0x1A + the iBeacon AD
    /// (§4.1: "iPhone-transmitted iBeacons use 0x1A"), 30 bytes, foreground only.
    private static func iBeaconForeground(
        _ plan: AdvertPlan,
        beacon: IBeacon,
        name: String?,
        findings initial: [Finding]
    ) -> AdvertResult {
        var findings = initial
        if name != nil || !plan.data.serviceUUIDs.isEmpty {
            findings.append(
                Rules.iosIBeaconMixed.finding(
                    "the advert is an iBeacon (CLBeaconRegion.peripheralData) and also asks for a local name or "
                        + "service UUIDs; combining them is undocumented, so the layout shows the beacon alone"
                )
            )
        }
        let advertising = [AD.flags(flagsValue), Beacons.iBeacon(beacon)]
        return result(
            plan,
            profile: .iosForeground,
            advertising: advertising,
            scanResponse: [],
            overflow: nil,
            name: name.map { NameOutcome(requested: $0, onAir: nil, type: nil, placement: nil) },
            uuids: plan.data.serviceUUIDs.map(notAdvertised),
            findings: findings
        )
    }

    // MARK: Background

    /// §2.6: no local name; every service UUID in the overflow area; iOS 11 sent
    /// `02 01 1A` + the overflow AD (24 bytes) in the app's ADV_IND and an empty scan response.
    static func background(_ plan: AdvertPlan, options: CheckOptions) -> AdvertResult {
        var findings = commonFindings(plan)
        let name = plan.data.localName.flatMap { $0.isEmpty ? nil : $0 }
        if let name {
            findings.append(
                Rules.iosBackgroundName.finding(
                    "in the background iOS does not advertise the local name \(Quote.text(name)); scanners see no name"
                )
            )
        }
        if plan.iBeacon != nil {
            findings.append(
                Rules.iosBackgroundIBeacon.finding(
                    "an iBeacon advert (CLBeaconRegion.peripheralData) stops when the app moves to the background"
                )
            )
        }
        // An iBeacon advert stops in the background, so nothing of it is on air (§2.6).
        var advertising = plan.iBeacon == nil ? [AD.flags(flagsValue)] : []
        var overflow: OverflowLayout?
        var placements: [UUIDPlacement] = []
        let uuids = plan.iBeacon == nil ? plan.data.serviceUUIDs : []
        if !uuids.isEmpty {
            let area = overflowArea(uuids, placement: .advertisingData, offset: 3, options: options)
            let bits = area.layout.bits
            advertising.append(area.structure)
            overflow = area.layout
            for (uuid, bit) in zip(uuids, bits) {
                placements.append(inOverflowArea(uuid, bit))
                uuidFindings(uuid, width: AD.givenWidth(uuid), into: &findings)
            }
            findings.append(
                Rules.iosBackgroundOverflow.finding(
                    "in the background all \(uuids.count) service UUID(s) are only in the overflow area: iOS apps "
                        + "scanning for them find the device; Android and other scanners, and iOS scanners not "
                        + "filtering on them, do not (" + bits.map(uuidBitText).joined(separator: "; ") + ")"
                )
            )
            findings.append(
                Rules.iosBackgroundPlacement.finding(
                    "the layout shows the iOS 11 form (overflow area in the app's ADV_IND, empty scan response); "
                        + "iOS 17/18 system adverts carry the overflow area alone in the SCAN_RSP of the system "
                        + "advertising set, and whether an app's UUIDs are merged there is not established"
                )
            )
            findings += overflowFindings(bits, options: options)
        }
        return result(
            plan,
            profile: .iosBackground,
            advertising: advertising,
            scanResponse: [],
            overflow: overflow,
            name: name.map { NameOutcome(requested: $0, onAir: nil, type: nil, placement: nil) },
            uuids: placements,
            findings: findings
        )
    }

    // MARK: Shared

    /// Apple's overflow area for `uuids` (§2.7): its AD structure, and its layout at `offset` of
    /// `placement`.
    private static func overflowArea(
        _ uuids: [BluetoothUUID],
        placement: PayloadKind,
        offset: Int,
        options: CheckOptions
    ) -> (structure: ADStructure, layout: OverflowLayout) {
        let bits = uuids.map(OverflowBit.init)
        let layout = OverflowLayout(
            placement: placement,
            offset: offset,
            order: options.overflowBitOrder,
            bits: bits,
            bitmap: OverflowArea.bitmap(bits, order: options.overflowBitOrder)
        )
        return (OverflowArea.structure(bits, order: options.overflowBitOrder), layout)
    }

    /// The result of an iOS profile: the app's ADV_IND advertising data and its SCAN_RSP, both
    /// legacy (§2.10), with the per-type rules of §1 added to `findings`.
    private static func result(
        _ plan: AdvertPlan,
        profile: Profile,
        advertising: [ADStructure],
        scanResponse: [ADStructure],
        overflow: OverflowLayout?,
        name: NameOutcome?,
        uuids: [UUIDPlacement],
        findings: [Finding]
    ) -> AdvertResult {
        AdvertResult(
            advertID: plan.id,
            source: plan.source,
            profile: profile,
            advertisingData: PayloadLayout(
                kind: .advertisingData,
                pdu: "ADV_IND AdvData",
                capacity: capacity,
                structures: advertising
            ),
            scanResponse: PayloadLayout(
                kind: .scanResponse,
                pdu: "SCAN_RSP ScanRspData",
                capacity: capacity,
                structures: scanResponse
            ),
            overflow: overflow,
            name: name,
            uuids: uuids,
            findings: findings
                + BlockRules.check(
                    advertising: advertising,
                    scanResponse: scanResponse,
                    extended: false,
                    connectable: true
                )
        )
    }

    /// Keys iOS drops, Flags and connectability it fixes (§2.1, §2.2, §2.3).
    static func commonFindings(_ plan: AdvertPlan) -> [Finding] {
        var dropped: [String] = []
        let d = plan.data
        if !d.manufacturerData.isEmpty { dropped.append("manufacturer data (CBAdvertisementDataManufacturerDataKey)") }
        if !d.serviceData.isEmpty { dropped.append("service data (CBAdvertisementDataServiceDataKey)") }
        if d.txPower != nil { dropped.append("TX power (CBAdvertisementDataTxPowerLevelKey)") }
        if d.appearance != nil { dropped.append("appearance (no CoreBluetooth key)") }
        if plan.eddystone != nil { dropped.append("the Eddystone frame (it needs service data)") }
        if !plan.scanResponse.isEmpty {
            dropped.append("the scan_response fields (iOS fills the scan response itself)")
        }
        dropped += plan.otherKeys.map { Quote.code($0) }
        var findings = dropped.map {
            Rules.iosKeyDropped.finding(
                "\($0) is not advertised: startAdvertising supports only CBAdvertisementDataLocalNameKey and "
                    + "CBAdvertisementDataServiceUUIDsKey; other keys are dropped (Apple documents an error, "
                    + "observed behaviour is a console message and no data on air)"
            )
        }
        if let flags = plan.flags, flags != flagsValue {
            findings.append(
                Rules.iosFlagsFixed.finding(
                    "Flags 0x\(Quote.hexByte(flags)) cannot be set from an app: iOS always sends 0x1A"
                )
            )
        }
        if !plan.connectable {
            findings.append(
                Rules.iosConnectableFixed.finding(
                    "the plan is not connectable, but iOS app adverts go out as connectable ADV_IND"
                )
            )
        }
        return findings
    }

    /// Width-specific uncertainties of one UUID.
    private static func uuidFindings(_ uuid: BluetoothUUID, width: Int, into findings: inout [Finding]) {
        if width == 4 {
            findings.append(
                Rules.iosUUID32Uncertain.finding(
                    "\(Describe.uuidText(uuid)) is a 32-bit UUID; no capture shows how iOS sends 32-bit CBUUIDs"
                )
            )
        }
        if width == 16, let short = uuid.shortValue {
            let digits = short <= 0xFFFF ? 4 : 8
            findings.append(
                Rules.iosUUIDBase128.finding(
                    "\(uuid.canonical) is on the Bluetooth base but written in 128-bit form; CoreBluetooth "
                        + "reportedly sends it as 16 bytes. Write \(Quote.hex(UInt64(short), digits: digits).dropFirst(2)) "
                        + "to send \(digits / 2) bytes"
                )
            )
        }
    }

    /// Bit-order uncertainty and collisions among the overflow bits (§2.7, §5.1).
    private static func overflowFindings(_ bits: [OverflowBit], options: CheckOptions) -> [Finding] {
        var findings = [
            Rules.iosOverflowBitOrder.finding(
                "the overflow bitmap is shown \(options.overflowBitOrder.rawValue) "
                    + (options.overflowBitOrder == .msbFirst ? "(iOS 13/14 table)" : "(iOS 11 captures)")
                    + "; which order iOS 15 and later send is unverified, and the CRC-8 hash is inferred from "
                    + "observations; iOS-to-iOS discovery works either way"
            )
        ]
        var seen: [Int: BluetoothUUID] = [:]
        for bit in bits {
            if let other = seen[bit.hash], other != bit.uuid {
                findings.append(
                    Rules.iosOverflowCollision.finding(
                        "\(Describe.uuidText(other)) and \(Describe.uuidText(bit.uuid)) set the same overflow bit "
                            + "(hash \(bit.hash)): an iOS scanner for either also finds the other"
                    )
                )
            } else {
                seen[bit.hash] = bit.uuid
            }
        }
        return findings
    }

    /// "hash 66: byte 8 mask 0x20 (MSB-first) / 0x04 (LSB-first)".
    static func bitText(_ bit: OverflowBit) -> String {
        "hash \(bit.hash): byte \(bit.byte) mask 0x\(Quote.hexByte(bit.msbFirstMask)) (MSB-first) / "
            + "0x\(Quote.hexByte(bit.lsbFirstMask)) (LSB-first)"
    }

    /// "9AA4730F-… → hash 66: byte 8 …".
    static func uuidBitText(_ bit: OverflowBit) -> String { "\(bit.uuid.description) → " + bitText(bit) }

    /// A UUID in the overflow area: only iOS apps scanning for it see it (§2.1, §2.7).
    private static func inOverflowArea(_ uuid: BluetoothUUID, _ bit: OverflowBit) -> UUIDPlacement {
        UUIDPlacement(
            uuid: uuid,
            place: .overflowArea,
            overflowBit: bit,
            seenByIOSFilteringScanner: true,
            seenByOtherScanners: false
        )
    }

    private static func notAdvertised(_ uuid: BluetoothUUID) -> UUIDPlacement {
        UUIDPlacement(uuid: uuid, place: .notAdvertised, seenByIOSFilteringScanner: false, seenByOtherScanners: false)
    }

    /// A warning when the cut at `kept` falls inside a multi-byte UTF-8 character (§5.8).
    static func utf8SplitFinding(_ bytes: [UInt8], kept: Int, rule: Rule, into findings: inout [Finding]) {
        guard kept < bytes.count, bytes[kept] & 0xC0 == 0x80 else { return }
        findings.append(
            rule.finding(
                "the cut after \(kept) bytes falls inside a multi-byte UTF-8 character; whether the platform "
                    + "keeps the partial character, drops it or cuts earlier is not known"
            )
        )
    }
}
