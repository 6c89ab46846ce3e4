import BLEInspectCore

extension DissectionContext {
    /// Adds a btatt.handle field (as Wireshark does for every handle) with, as children, the
    /// handle's role when it is not a plain handle (`role`: handle in error, characteristic value
    /// handle, included service handle), the UUIDs Wireshark shows under it (`btatt.service_uuid*`,
    /// `btatt.characteristic_uuid*`, `btatt.uuid*`, from `record`), and what the connection's
    /// database knows of it: the attribute's UUID and name, the characteristic of a descriptor or
    /// declaration, and the enclosing service (`gatt.*`).
    mutating func addATTHandle(
        _ f: Fields<ATTField>,
        _ role: ATTField,
        _ handle: UInt16,
        _ range: Range<Int>,
        _ db: GATTDatabase?,
        _ record: @autoclosure () -> HandleRecord,
        source: Int
    ) {
        // With a field mask that keeps none of the handle's details, nothing needs looking up.
        guard ATTHandleDetail.all.contains(where: { tree.keeps(f[$0]) }) || (role != .handle && tree.keeps(f[role]))
        else {
            tree.add(f[.handle], .unsigned(UInt64(handle)), range, source: source)
            return
        }
        let known = db?.facts(handle) ?? HandleFacts()
        let attribute = known.attribute
        let service = known.service
        let recorded = record().uuids(handle)
        guard attribute != nil || service != nil || role != .handle || !recorded.isEmpty else {
            tree.add(f[.handle], .unsigned(UInt64(handle)), range, source: source)
            return
        }
        tree.open(f[.handle], .unsigned(UInt64(handle)), range, source: source)
        if role != .handle { tree.add(f[role], .unsigned(UInt64(handle)), range, source: source) }
        if let uuid = recorded.service { addATTUUID(f, uuid, .serviceUUID16, .serviceUUID128, range, source: source) }
        if let uuid = recorded.characteristic {
            addATTUUID(f, uuid, .characteristicUUID16, .characteristicUUID128, range, source: source)
        }
        if let uuid = recorded.attribute { addATTUUID(f, uuid, .uuid16, .uuid128, range, source: source) }
        if let attribute {
            tree.add(f[.gattUUID], .uuid(attribute.uuid), range, source: source)
            if attribute.named, let name = db?[handle]?.name {
                tree.add(f[.gattName], text: name, range, source: source)
            }
            if let about = attribute.about {
                switch attribute.kind {
                case .descriptor, .characteristicDeclaration:
                    tree.add(f[.gattCharacteristicUUID], .uuid(about), range, source: source)
                case .primaryService, .secondaryService:
                    tree.add(f[.gattServiceUUID], .uuid(about), range, source: source)
                case .include, .characteristicValue, .attribute:
                    break
                }
            }
        }
        if let service, attribute?.kind != .primaryService, attribute?.kind != .secondaryService {
            tree.add(f[.gattServiceUUID], .uuid(service.uuid), range, source: source)
        }
        tree.close()
    }

    /// Adds `uuid` as the 16-bit field `short` when it was 16 bits wide on the wire, else as the
    /// 128-bit field `long` (as Wireshark does: a 128-bit UUID on the base is not shortened).
    mutating func addATTUUID(
        _ f: Fields<ATTField>,
        _ uuid: BluetoothUUID,
        _ short: ATTField,
        _ long: ATTField,
        _ range: Range<Int>,
        source: Int
    ) {
        if uuid.width == 2, let value = uuid.uuid16 {
            tree.add(f[short], .unsigned(UInt64(value)), range, source: source)
        } else {
            tree.add(f[long], .uuid(uuid), range, source: source)
        }
    }

    /// Adds an opcode as `field` (btatt.opcode, or the request opcode in an Error Response) with its
    /// method, command and signature bits, as Wireshark shows both.
    mutating func addATTOpcode(
        _ f: Fields<ATTField>,
        _ field: ATTField,
        _ opcode: UInt8,
        _ range: Range<Int>,
        source: Int
    ) {
        tree.open(f[field], .unsigned(UInt64(opcode)), range, source: source)
        tree.add(f[.opcodeMethod], .unsigned(UInt64(opcode & 0x3F)), range, source: source)
        tree.add(f[.opcodeCommand], .boolean(opcode & 0x40 != 0), range, source: source)
        tree.add(f[.opcodeSignature], .boolean(opcode & 0x80 != 0), range, source: source)
        tree.close()
    }

    /// Adds a characteristic declaration's properties and their bits.
    mutating func addATTProperties(_ f: Fields<ATTField>, _ properties: UInt8, _ range: Range<Int>, source: Int) {
        tree.open(f[.characteristicProperties], .unsigned(UInt64(properties)), range, source: source)
        for (field, mask) in ATTPropertyBits.all {
            tree.add(f[field], .boolean(properties & mask != 0), range, source: source)
        }
        tree.close()
    }

    /// Records what Wireshark learns of `handle` (or forgets it, for a nil `entry`), with a note
    /// the first time the record is full.
    mutating func recordATTHandle(
        _ handle: UInt16,
        _ entry: RecordedHandle?,
        _ record: HandleRecord,
        _ range: Range<Int>,
        source: Int
    ) {
        guard !record.record(handle, entry), !record.fullNoted else { return }
        record.fullNoted = true
        expert(
            .note,
            "Limit reached: \(HandleRecord.maximumHandles) handles are recorded for this controller; "
                + "later handles get no btatt.uuid fields",
            range,
            source: source
        )
    }
}

/// The fields `addATTHandle` may add under a handle besides its role: what the record and the
/// database know of it.
enum ATTHandleDetail {
    static let all: [ATTField] = [
        .serviceUUID16, .serviceUUID128, .characteristicUUID16, .characteristicUUID128, .uuid16, .uuid128,
        .gattUUID, .gattName, .gattCharacteristicUUID, .gattServiceUUID,
    ]
}

/// The bits of a characteristic declaration's properties, most significant first.
enum ATTPropertyBits {
    static let all: [(ATTField, UInt8)] = [
        (.propertyExtendedProperties, 0x80), (.propertyAuthenticatedSignedWrites, 0x40), (.propertyIndicate, 0x20),
        (.propertyNotify, 0x10), (.propertyWrite, 0x08), (.propertyWriteWithoutResponse, 0x04),
        (.propertyRead, 0x02), (.propertyBroadcast, 0x01),
    ]
}

/// The value of a characteristic declaration: properties, value handle and characteristic UUID.
struct CharacteristicDeclaration {
    var properties: UInt8
    var valueHandle: UInt16
    var uuid: BluetoothUUID

    /// Reads the whole of `reader`: 3 bytes, then a 2- or 16-byte UUID.
    init(_ reader: inout ByteReader) throws(DecodeError) {
        properties = try reader.readUInt8()
        valueHandle = try reader.readUInt16()
        let uuidSize = reader.remaining
        guard uuidSize == 2 || uuidSize == 16 else {
            throw DecodeError(
                .malformed,
                offset: reader.offset,
                "a characteristic declaration's UUID is 2 or 16 bytes, not \(uuidSize)"
            )
        }
        uuid = try reader.readUUID(bytes: uuidSize)
    }
}
