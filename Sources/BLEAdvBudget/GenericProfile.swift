import BLEInspectCore

/// The Core Specification limits with the plan's fields as written: legacy advertising, 31 + 31
/// bytes (§1.2), and extended advertising, 254 bytes per PDU and 1650 in total or the controller's
/// maximum (§1.3). Also the check of raw AD bytes from captures.
enum GenericProfile {
    static let legacyCapacity = 31
    /// AdvData per extended PDU (§1.3).
    static let extendedPDUData = 254
    /// Data per HCI LE Set Extended Advertising Data command (§1.3).
    static let hciFragment = 251
    /// The Flags value used when the plan gives none: LE General Discoverable + BR/EDR Not
    /// Supported, the beacon convention (§1.4, §4.1, §4.2); BR/EDR Not Supported alone when not
    /// discoverable.
    static func defaultFlags(discoverable: Bool) -> UInt8 { discoverable ? 0x06 : 0x04 }

    static func check(_ plan: AdvertPlan, profile: Profile) -> AdvertResult {
        var findings: [Finding] = []
        for key in plan.otherKeys {
            findings.append(
                Rules.sourceKeyUnmodelled.finding("\(Quote.code(key)) is a CoreBluetooth key; it is not modelled here")
            )
        }
        var data = plan.data
        var extra: [ADStructure] = []
        if let beacon = plan.iBeacon { extra.append(Beacons.iBeacon(beacon)) }
        if let frame = plan.eddystone {
            switch Beacons.eddystone(frame) {
            case .success(let s):
                extra.append(s)
                let feaa = BluetoothUUID(uuid16: Beacons.eddystoneUUID)
                if !data.serviceUUIDs.contains(feaa) { data.serviceUUIDs.append(feaa) }
            case .failure(let error):
                findings.append(Rules.beaconInvalid.finding(error.message))
            }
        }
        // Flags: the plan's value; else the default when connectable or a beacon (§1.4: required
        // for connectable adverts with non-zero bits; beacons carry them by convention, §4).
        let beacon = plan.iBeacon != nil || plan.eddystone != nil
        let flags = plan.flags ?? (plan.connectable || beacon ? defaultFlags(discoverable: plan.discoverable) : nil)
        var advertising: [ADStructure] = flags.map { [AD.flags($0)] } ?? []
        advertising += structures(data, extra: extra)
        let response = structures(plan.scanResponse, extra: [])

        let extended: Bool
        let capacity: Int
        switch profile {
        case .extended(let maximum):
            extended = true
            capacity = maximum
        default:
            extended = false
            capacity = legacyCapacity
        }
        let advertisingLayout = PayloadLayout(
            kind: .advertisingData,
            pdu: extended
                ? "ADV_EXT_IND → AUX_ADV_IND (+ AUX_CHAIN_IND)"
                : (plan.connectable ? "ADV_IND" : "ADV_NONCONN_IND / ADV_SCAN_IND") + " AdvData",
            capacity: capacity,
            structures: advertising
        )
        let responseLayout = PayloadLayout(
            kind: .scanResponse,
            pdu: extended ? "AUX_SCAN_RSP (+ AUX_CHAIN_IND)" : "SCAN_RSP ScanRspData",
            capacity: capacity,
            structures: response
        )
        findings += limits(advertisingLayout, responseLayout, extended: extended, connectable: plan.connectable)
        findings += BlockRules.check(
            advertising: advertising,
            scanResponse: response,
            extended: extended,
            connectable: plan.connectable
        )

        let placements = Self.placements(
            advertising: data.serviceUUIDs,
            scanResponse: plan.scanResponse.serviceUUIDs,
            width: AD.givenWidth
        )
        var outcome: NameOutcome?
        if let name = plan.data.localName ?? plan.scanResponse.localName {
            outcome = NameOutcome(
                requested: name,
                onAir: Array(name.utf8),
                type: ADType.completeName,
                placement: plan.data.localName != nil ? .advertisingData : .scanResponse
            )
        }
        return AdvertResult(
            advertID: plan.id,
            source: plan.source,
            profile: profile,
            advertisingData: advertisingLayout,
            scanResponse: responseLayout,
            overflow: nil,
            name: outcome,
            uuids: placements,
            findings: findings
        )
    }

    /// Service UUIDs placed as written, in the advertising data and the scan response, each in
    /// a list of `width(uuid)` bytes and seen by every scanner (also Android's placement, §3).
    static func placements(
        advertising: [BluetoothUUID],
        scanResponse: [BluetoothUUID],
        width: (BluetoothUUID) -> Int
    ) -> [UUIDPlacement] {
        var placements: [UUIDPlacement] = []
        for (uuids, place) in [(advertising, UUIDPlacement.Place.advertisingData), (scanResponse, .scanResponse)] {
            for uuid in uuids {
                placements.append(
                    UUIDPlacement(
                        uuid: uuid,
                        place: place,
                        width: width(uuid),
                        seenByIOSFilteringScanner: true,
                        seenByOtherScanners: true
                    )
                )
            }
        }
        return placements
    }

    /// Raw AD bytes from a capture: parsed, then the same limits and per-type rules.
    static func check(raw: RawAdvert, options: CheckOptions) -> AdvertResult {
        let extended = raw.kind == .extended
        let capacity = extended ? options.extendedMaximum : legacyCapacity
        var findings: [Finding] = []
        func layout(_ bytes: [UInt8]?, kind: PayloadKind) -> PayloadLayout {
            let parsed = ADParser.parse(bytes ?? [], block: kind.title)
            findings += parsed.findings
            let rest = Array((bytes ?? []).dropFirst(parsed.significantCount))
            // Zero padding after the data is the legacy "non-significant part" (§1.1); a malformed
            // tail is kept so that the layout still shows every byte.
            let trailing = rest.allSatisfy { $0 == 0 } ? [] : rest
            return PayloadLayout(
                kind: kind,
                pdu: kind == .advertisingData ? "AdvData" : "ScanRspData",
                capacity: capacity,
                structures: parsed.structures,
                offsets: parsed.offsets,
                trailing: trailing
            )
        }
        let advertising = layout(raw.advertisingData, kind: .advertisingData)
        let response = layout(raw.scanResponseData, kind: .scanResponse)
        findings += limits(advertising, response, extended: extended, connectable: raw.connectable ?? false)
        findings += BlockRules.check(
            advertising: advertising.ads,
            scanResponse: response.ads,
            extended: extended,
            connectable: raw.connectable
        )
        var overflow: OverflowLayout?
        for payload in [advertising, response] {
            for placed in payload.structures where OverflowArea.isOverflowArea(placed.structure) {
                let bitmap = Array(placed.structure.data.dropFirst(3))
                var set: [String] = []
                for (i, byte) in bitmap.enumerated() where byte != 0 {
                    set.append("byte \(i) 0x\(Quote.hexByte(byte))")
                }
                findings.append(
                    Rules.adAppleOverflow.finding(
                        "\(payload.kind.title) offset \(placed.offset): Apple overflow area, bitmap "
                            + (set.isEmpty ? "empty" : set.joined(separator: ", "))
                    )
                )
                overflow = OverflowLayout(
                    placement: payload.kind,
                    offset: placed.offset,
                    order: options.overflowBitOrder,
                    bits: [],
                    bitmap: bitmap
                )
            }
        }
        return AdvertResult(
            advertID: raw.label,
            source: raw.source,
            profile: extended ? .extended(maximum: options.extendedMaximum) : .legacy,
            advertisingData: advertising,
            scanResponse: response,
            overflow: overflow,
            name: nil,
            uuids: [],
            findings: findings
        )
    }

    /// The size limits of §1.2 / §1.3.
    private static func limits(
        _ advertising: PayloadLayout,
        _ response: PayloadLayout,
        extended: Bool,
        connectable: Bool
    ) -> [Finding] {
        var findings: [Finding] = []
        for payload in [advertising, response] {
            let isAdvertising = payload.kind == .advertisingData
            if payload.used > payload.capacity {
                let rule =
                    extended
                    ? (isAdvertising ? Rules.extendedAdvertisingTooLarge : Rules.extendedScanResponseTooLarge)
                    : (isAdvertising ? Rules.legacyAdvertisingTooLarge : Rules.legacyScanResponseTooLarge)
                findings.append(
                    rule.finding(
                        "the \(payload.kind.title) needs \(payload.used) bytes; "
                            + (extended
                                ? "extended advertising carries at most \(payload.capacity)"
                                : "legacy advertising carries at most \(payload.capacity)")
                            + " (\(payload.used - payload.capacity) over)"
                    )
                )
            }
            guard extended else { continue }
            if payload.used > extendedPDUData {
                let pdus = (payload.used + extendedPDUData - 1) / extendedPDUData
                let commands = (payload.used + hciFragment - 1) / hciFragment
                findings.append(
                    Rules.extendedChained.finding(
                        "the \(payload.kind.title) (\(payload.used) bytes) is chained over at least \(pdus) PDUs "
                            + "of ≤ 254 bytes (fewer bytes each with mandatory header fields) and set in "
                            + "\(commands) HCI fragments of ≤ 251 bytes"
                    )
                )
            }
            if payload.used > legacyCapacity {
                findings.append(
                    Rules.extendedReceivers.finding(
                        "the \(payload.kind.title) (\(payload.used) bytes) exceeds legacy's 31: only scanners that "
                            + "support extended advertising receive it (no evidence that iOS peripherals use it)"
                    )
                )
            }
        }
        if extended && connectable && !response.structures.isEmpty {
            findings.append(
                Rules.extendedConnectableScannable.finding(
                    "the advert is connectable and has a scan response; an extended advert cannot be both "
                        + "connectable and scannable"
                )
            )
        }
        return findings
    }

    /// The plan's fields as written: UUID lists (16, 32, 128-bit, complete) → name (complete) →
    /// TX power → appearance → manufacturer data → beacon structures → service data.
    private static func structures(_ d: AdvertFields, extra: [ADStructure]) -> [ADStructure] {
        var out: [ADStructure] = []
        for width in [2, 4, 16] {
            let uuids = d.serviceUUIDs.filter { AD.givenWidth($0) == width }
            if !uuids.isEmpty { out.append(AD.uuidList(uuids, width: width, complete: true)) }
        }
        if let name = d.localName { out.append(AD.name(Array(name.utf8), complete: true)) }
        if let tx = d.txPower { out.append(AD.txPower(tx)) }
        if let appearance = d.appearance { out.append(AD.appearance(appearance)) }
        out += d.manufacturerData.map(AD.manufacturer)
        out += extra.filter { $0.type == ADType.manufacturer }
        out += d.serviceData.map { AD.serviceData($0, width: AD.givenWidth($0.uuid)) }
        out += extra.filter { $0.type != ADType.manufacturer }
        return out
    }
}
