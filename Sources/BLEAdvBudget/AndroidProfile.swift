import BLEInspectCore

/// Android's `BluetoothLeAdvertiser.startAdvertising(settings, data, scanResponse, callback)`,
/// legacy advertising (§3).
enum AndroidProfile {
    /// `MAX_LEGACY_ADVERTISING_DATA_BYTES` (§3).
    static let capacity = 31
    /// `FLAGS_FIELD_BYTES` (§3).
    static let flagsBytes = 3
    /// `DEVICE_NAME_MAX`: longer names are sent cut to 26 bytes as type 0x08 (§3).
    static let nameMax = 26
    /// `BTM_GENERAL_DISCOVERABLE` (§3, legacy stack `SetData`).
    static let flagsValue: UInt8 = 0x02

    /// One field's bytes on air and what `totalBytes()` counts for it, with a label for messages.
    private struct Field {
        var structure: ADStructure
        var counted: Int
        var label: String
    }

    static func check(_ plan: AdvertPlan) -> AdvertResult {
        var findings: [Finding] = []
        if plan.data.appearance != nil || plan.scanResponse.appearance != nil {
            findings.append(
                Rules.androidKeyUnsupported.finding(
                    "appearance cannot be advertised: AdvertiseData has no Appearance field"
                )
            )
        }
        if let flags = plan.flags {
            findings.append(
                Rules.androidFlagsFixed.finding(
                    "Flags 0x\(Quote.hexByte(flags)) cannot be set: the stack adds 02 01 02 (General "
                        + "Discoverable; 0x01 Limited with a timeout) itself, and only to connectable adverts"
                )
            )
        }
        for key in plan.otherKeys {
            findings.append(
                Rules.sourceKeyUnmodelled.finding("\(Quote.code(key)) is a CoreBluetooth key; it has no Android model")
            )
        }
        if plan.data.localName != nil || plan.scanResponse.localName != nil {
            findings.append(
                Rules.androidNameAdapter.finding(
                    "Android advertises the adapter's name (setIncludeDeviceName(true)); the plan's name stands "
                        + "for it"
                )
            )
        }

        // Flags are counted and added when connectable (older AOSP) / connectable and discoverable
        // (current module code); never in the scan response (§3).
        let hasFlags = plan.connectable && plan.discoverable
        var data = plan.data
        if let beacon = plan.iBeacon {
            data.manufacturerData.append(
                ManufacturerData(company: 0x004C, data: Array(Beacons.iBeacon(beacon).data.dropFirst(2)))
            )
        }
        var eddystone: ADStructure?
        if let frame = plan.eddystone {
            switch Beacons.eddystone(frame) {
            case .success(let s):
                eddystone = s
                let feaa = BluetoothUUID(uuid16: Beacons.eddystoneUUID)
                if !data.serviceUUIDs.contains(feaa) { data.serviceUUIDs.append(feaa) }
            case .failure(let error):
                findings.append(Rules.beaconInvalid.finding(error.message))
            }
        }
        let advertising = fields(data, eddystone: eddystone)
        let response = fields(plan.scanResponse, eddystone: nil)

        let flagsField = Field(structure: AD.flags(flagsValue), counted: flagsBytes, label: "Flags")
        let advertisingFields = (hasFlags ? [flagsField] : []) + advertising
        let advertisingCount = advertisingFields.reduce(0) { $0 + $1.counted }
        let responseCount = response.reduce(0) { $0 + $1.counted }
        if advertisingCount > capacity {
            findings.append(tooLarge("advertising data", advertisingFields, count: advertisingCount))
        }
        if responseCount > capacity {
            findings.append(tooLarge("scan response", response, count: responseCount))
        }
        if plan.connectable && !plan.discoverable {
            let older = advertisingCount + flagsBytes
            findings.append(
                Rules.androidFlagsVersion.finding(
                    "connectable but not discoverable: current AOSP adds no Flags, older releases add 3 bytes "
                        + "(\(older) of \(capacity))"
                        + (older > capacity && advertisingCount <= capacity
                            ? ", which fails there with ADVERTISE_FAILED_DATA_TOO_LARGE" : "")
                )
            )
        }

        var outcome: NameOutcome?
        if let name = plan.data.localName ?? plan.scanResponse.localName {
            let bytes = Array(name.utf8)
            let kept = Array(bytes.prefix(nameMax))
            let place: PayloadKind = plan.data.localName != nil ? .advertisingData : .scanResponse
            outcome = NameOutcome(
                requested: name,
                onAir: kept,
                type: kept.count < bytes.count ? ADType.shortenedName : ADType.completeName,
                placement: place
            )
            if kept.count < bytes.count {
                findings.append(
                    Rules.androidNameTruncated.finding(
                        "\(Quote.text(name)) → \(Quote.bytes(kept)) (0x08): names over \(nameMax) UTF-8 bytes are "
                            + "sent cut to \(nameMax); the size check still counts all \(bytes.count)"
                    )
                )
                IOSProfile.utf8SplitFinding(bytes, kept: kept.count, rule: Rules.androidNameUTF8Split, into: &findings)
            }
        }
        let placements = GenericProfile.placements(
            advertising: data.serviceUUIDs,
            scanResponse: plan.scanResponse.serviceUUIDs,
            width: AD.shortestWidth
        )

        let advertisingADs = advertisingFields.map(\.structure)
        let responseADs = response.map(\.structure)
        findings += BlockRules.check(
            advertising: advertisingADs,
            scanResponse: responseADs,
            extended: false,
            connectable: plan.connectable
        )
        let advertisingLayout = PayloadLayout(
            kind: .advertisingData,
            pdu: plan.connectable ? "ADV_IND AdvData" : "ADV_SCAN_IND AdvData",
            capacity: capacity,
            structures: advertisingADs,
            countedSize: advertisingCount
        )
        let responseLayout = PayloadLayout(
            kind: .scanResponse,
            pdu: "SCAN_RSP ScanRspData",
            capacity: capacity,
            structures: responseADs,
            countedSize: responseCount
        )
        return AdvertResult(
            advertID: plan.id,
            source: plan.source,
            profile: .android,
            advertisingData: advertisingLayout,
            scanResponse: responseLayout,
            overflow: nil,
            name: outcome,
            uuids: placements,
            findings: findings
        )
    }

    /// `AdvertiseHelper.advertiseDataToBytes` order: name → manufacturer data → TX power → 16/32/128-bit
    /// UUID lists (complete) → service data (§3), with `totalBytes()`'s count for each.
    private static func fields(_ d: AdvertFields, eddystone: ADStructure?) -> [Field] {
        var out: [Field] = []
        if let name = d.localName {
            let bytes = Array(name.utf8)
            let kept = Array(bytes.prefix(nameMax))
            // totalBytes counts 2 + the adapter-reported name length (§3).
            out.append(
                Field(
                    structure: AD.name(kept, complete: kept.count == bytes.count),
                    counted: 2 + bytes.count,
                    label: "device name"
                )
            )
        }
        for m in d.manufacturerData {
            let s = AD.manufacturer(m)
            out.append(Field(structure: s, counted: s.size, label: "manufacturer data"))
        }
        if let tx = d.txPower {
            out.append(Field(structure: AD.txPower(tx), counted: 3, label: "TX power"))
        }
        // All UUIDs of a width in one field; 16/32-bit iff on the SIG base (§3).
        for width in [2, 4, 16] {
            let uuids = d.serviceUUIDs.filter { AD.shortestWidth($0) == width }
            guard !uuids.isEmpty else { continue }
            let s = AD.uuidList(uuids, width: width, complete: true)
            out.append(Field(structure: s, counted: s.size, label: "\(width * 8)-bit service UUIDs"))
        }
        for sd in d.serviceData {
            let s = AD.serviceData(sd, width: AD.shortestWidth(sd.uuid))
            out.append(Field(structure: s, counted: s.size, label: "service data"))
        }
        if let eddystone {
            out.append(Field(structure: eddystone, counted: eddystone.size, label: "service data (Eddystone)"))
        }
        return out
    }

    private static func tooLarge(_ part: String, _ fields: [Field], count: Int) -> Finding {
        let parts = fields.map { "\($0.label) \($0.counted)" }.joined(separator: " + ")
        return Rules.androidDataTooLarge.finding(
            "startAdvertising fails: onStartFailure(ADVERTISE_FAILED_DATA_TOO_LARGE = 1), because the \(part) "
                + "counts \(count) bytes of \(capacity) (\(parts))"
        )
    }
}
