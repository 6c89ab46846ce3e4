import BLEInspectCore

/// The dissector bound to one ATT opcode (a row of `ATTOpcodes.table`): it applies the row's
/// length rule and runs the row's decoder, a method of `ATTParameters`. The decoders pair
/// requests with responses, learn the GATT database from discovery responses, and name the
/// attribute behind every handle they show.
///
/// A class: each PDU's decoding holds the row, and holding a class costs one reference count,
/// not a copy of every property.
final class ATTOpcodeDissector: Dissector {
    let f: Fields<ATTField>
    let opcode: UInt8
    /// The row's name ("Read Request").
    let name: String
    let length: OpcodeLength
    /// The request this PDU answers (its row's `answers`), if it answers one.
    let answers: UInt8?
    let decode: ATTOpcodes.Decode
    /// Into `StandardTables.gattUUID`: the decoders of attribute values, by UUID.
    let values: Handoff<BluetoothUUID>

    init(
        f: Fields<ATTField>,
        opcode: UInt8,
        name: String,
        length: OpcodeLength,
        answers: UInt8?,
        decode: ATTOpcodes.Decode,
        values: Handoff<BluetoothUUID>
    ) {
        self.f = f
        self.opcode = opcode
        self.name = name
        self.length = length
        self.answers = answers
        self.decode = decode
        self.values = values
    }

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        // ATTDissector leaves the PDU's opening to this row (`ATTPDU.open`): the PDU starts at the
        // opcode, just before the parameters.
        let whole = max(0, reader.offset - 1)..<(reader.offset + reader.remaining)
        let pdu = ATTPDU.open(&context, at: whole, source: reader.source, opcode: opcode)
        var parameters = ATTParameters(row: self, pdu: pdu, reader: reader)
        // The summary until the decoder says more.
        parameters.plainSummary = context.tree.infoVersion
        // The decoder reaches the parameters through a pointer, valid for this call: copying the
        // row and the PDU's references into a decoder value cost more than decoding most PDUs.
        try withUnsafeMutablePointer(to: &parameters) { (p) throws(DecodeError) in
            try context.decode(&reader, length: length, trailing: "PDU", Decoding(parameters: p))
        }
    }

    /// The row's decoder with the PDU's bearer, for `DissectionContext.decode`.
    private struct Decoding: ParameterDecoder {
        let parameters: UnsafeMutablePointer<ATTParameters>
        func decode(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
            parameters.pointee.start(reader)
            // Where the decoder stopped, even when it throws: a cut PDU's error names that offset.
            defer { reader = parameters.pointee.reader }
            try parameters.pointee.run(&context)
        }
    }
}

/// One PDU's parameters as its row's decoder reads them: the decoders (and their helpers) are
/// methods of this value, so that the row, the PDU's bearer, the reader and where the parameters
/// start need not be passed to each.
struct ATTParameters {
    /// The row decoding the PDU: alive for the whole of its `dissect` call, which holds this.
    unowned(unsafe) let row: ATTOpcodeDissector
    let pdu: ATTPDU
    var reader: ByteReader
    /// Where the parameters start (after the opcode), and their data source.
    private(set) var at: Int
    private(set) var src: Int
    /// The summary's version (`ProtocolTree.infoVersion`) once the row's plain summary ("Sent
    /// Write Command") was set: while it is unchanged, setting that summary again is skipped.
    var plainSummary = -1

    init(row: ATTOpcodeDissector, pdu: ATTPDU, reader: ByteReader) {
        self.row = row
        self.pdu = pdu
        self.reader = reader
        at = reader.offset
        src = reader.source
    }

    /// Starts on the parameters in `reader`.
    mutating func start(_ reader: ByteReader) {
        self.reader = reader
        at = reader.offset
        src = reader.source
    }

    var f: Fields<ATTField> { row.f }
    var opcode: UInt8 { row.opcode }
    /// The row's name ("Read Request").
    var name: String { row.name }
    /// The request this PDU answers (its row's `answers`), if it answers one.
    var answers: UInt8? { row.answers }

    /// The pending request this response answers (the row's `answers`), taken off the bearer.
    func takeRequest(_ context: DissectionContext) -> PendingRequest? {
        guard let answers else { return nil }
        return pdu.bearer.take(requestOpcode: answers, answeredFrom: context.direction)
    }
}

extension ATTParameters {
    // MARK: - Error and MTU

    mutating func errorResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let opcodeAt = reader.offset
        let requestOpcode = try reader.readUInt8()
        context.addATTOpcode(f, .reqOpcodeInError, requestOpcode, opcodeAt..<(opcodeAt + 1), source: src)
        let db = pdu.database
        let handle = try readHandle(.handleInError, &context, db)
        let code = try context.addUInt8(f[.errorCode], &reader)
        let request = pdu.bearer.take(requestOpcode: requestOpcode, answeredFrom: context.direction)
        let direction = context.direction
        context.setInfo(parts: ATTInfo.prefix(direction), "Error Response - ", ATTNames.errorName(code), ", ")
        if context.wantsInfo { context.tree.appendInfo(ATTNames.opcodeName(requestOpcode)) }
        context.appendHandleInfo(handle, db)
        addRequestType(request, &context, at: reader.offset)
        addAnswer(request, &context, at: reader.offset)
    }

    /// Reads the Client or Server Rx MTU of an Exchange MTU PDU, and sets the summary.
    private mutating func rxMTU(_ field: ATTField, _ side: String, _ context: inout DissectionContext)
        throws(DecodeError) -> UInt16
    {
        let mtu = try context.addUInt16(f[field], &reader)
        setSummary(&context, name + ", \(side) Rx MTU: \(mtu)")
        if mtu < 23 {
            context.expert(
                .warning,
                "\(side) Rx MTU \(mtu) is below the minimum ATT_MTU of 23",
                at..<(at + 2),
                source: src
            )
        }
        return mtu
    }

    mutating func exchangeMTURequest(_ context: inout DissectionContext) throws(DecodeError) {
        let mtu = try rxMTU(.clientRxMTU, "Client", &context)
        if pdu.enhanced {
            context.expert(
                .warning,
                "Exchange MTU is not allowed on an enhanced ATT bearer (EATT uses the L2CAP channel's MTU)",
                at..<(at + 2),
                source: src
            )
        }
        var request = pendingRequest(context)
        request.mtu = mtu
        remember(request, &context)
    }

    mutating func exchangeMTUResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let mtu = try rxMTU(.serverRxMTU, "Server", &context)
        let request = takeRequest(context)
        if let request {
            let agreed = max(23, min(request.mtu, mtu))
            pdu.bearer.mtu = agreed
            pdu.bearer.mtuExchanged = true
            context.tree.add(f[.gattMTU], .unsigned(UInt64(agreed)), at..<at, source: src)
            context.appendInfo("ATT MTU: \(agreed)")
        }
        addAnswer(request, &context, at: reader.offset)
    }

    // MARK: - Discovery

    /// Find Information, Find By Type Value, Read By Type and Read By Group Type requests.
    mutating func rangeRequest(_ context: inout DissectionContext) throws(DecodeError) {
        let start = try context.addUInt16(f[.startingHandle], &reader)
        let end = try context.addUInt16(f[.endingHandle], &reader)
        if start == 0 || start > end {
            context.expert(
                .warning,
                "Invalid handle range " + ATTNames.hex16(start) + ".." + ATTNames.hex16(end),
                at..<(at + 4),
                source: src
            )
        }
        var request = pendingRequest(context)
        request.handle = start
        request.endHandle = end
        switch opcode {
        case 0x04:
            break
        case 0x06:
            let typeAt = reader.offset
            let type = try reader.readUUID(bytes: 2)
            addUUID(type, typeAt..<(typeAt + 2), &context)
            request.type = type
            let value = reader.readRest()
            let valueRange = value.offset..<(value.offset + value.remaining)
            context.tree.open(f[.value], .bytes, valueRange, source: src)
            if type == GATTNames.primaryService || type == GATTNames.secondaryService,
                value.remaining == 2 || value.remaining == 16
            {
                // Remembered for the response; shown as the value only, as Wireshark does.
                var v = value
                request.valueUUID = try v.readUUID(bytes: value.remaining)
            }
            context.tree.close()
        default:
            let count = reader.remaining
            guard count == 2 || count == 16 else {
                throw DecodeError(.malformed, offset: reader.offset, "an attribute type is 2 or 16 bytes, not \(count)")
            }
            let typeAt = reader.offset
            let type = try reader.readUUID(bytes: count)
            addUUID(type, typeAt..<(typeAt + count), &context)
            request.type = type
        }
        setSummary(&context)
        if let type = request.type { context.appendUUIDInfo(type) }
        if let valueUUID = request.valueUUID { context.appendUUIDInfo(valueUUID) }
        context.appendRangeInfo(start, end)
        remember(request, &context)
    }

    mutating func findInformationResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let format = try context.addUInt8(f[.uuidFormat], &reader)
        let uuidSize: Int
        switch format {
        case 1: uuidSize = 2
        case 2: uuidSize = 16
        default:
            throw DecodeError(.malformed, offset: at, "UUID format \(format) is neither 1 (16-bit) nor 2 (128-bit)")
        }
        let request = takeRequest(context)
        setSummary(&context, "Find Information Response")
        let db = pdu.learningDatabase(&context, at: at..<(at + 1), source: src)
        if reader.isAtEnd {
            context.expert(.warning, "Find Information Response without information data", at..<(at + 1), source: src)
        }
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var item = try reader.readSlice(2 + uuidSize)
            let handle = try item.readUInt16()
            let uuid = try item.readUUID(bytes: uuidSize)
            learnFound(handle, uuid, db, &context, itemAt..<(itemAt + 2))
            context.tree.open(f[.informationData], .none, itemAt..<(itemAt + 2 + uuidSize), source: src)
            addHandle(.handle, handle, itemAt..<(itemAt + 2), &context, db)
            addUUID(uuid, (itemAt + 2)..<(itemAt + 2 + uuidSize), &context)
            context.tree.close()
            record(handle, RecordedHandle(uuid: uuid, role: .other), &context, itemAt..<(itemAt + 2))
            context.appendHandleInfo(handle, db)
        }
        addAnswer(request, &context, at: reader.offset)
    }

    mutating func findByTypeValueResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let request = takeRequest(context)
        setSummary(&context, "Find By Type Value Response")
        var service: (type: BluetoothUUID, uuid: BluetoothUUID)? = nil
        if let type = request?.type, let uuid = request?.valueUUID { service = (type, uuid) }
        let db = service == nil ? pdu.database : pdu.learningDatabase(&context, at: at..<at, source: src)
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var item = try reader.readSlice(4)
            let found = try item.readUInt16()
            let end = try item.readUInt16()
            if let service, let db {
                let kind: AttributeInfo.Kind =
                    service.type == GATTNames.secondaryService ? .secondaryService : .primaryService
                learn(
                    AttributeInfo(kind, service.type, about: service.uuid),
                    at: found,
                    db,
                    &context,
                    itemAt..<(itemAt + 4)
                )
                learnService(
                    ServiceRange(start: found, end: end, uuid: service.uuid),
                    db,
                    &context,
                    itemAt..<(itemAt + 4)
                )
            }
            context.tree.open(f[.handlesInfo], .none, itemAt..<(itemAt + 4), source: src)
            addHandle(.handle, found, itemAt..<(itemAt + 2), &context, db)
            context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
            context.tree.close()
            // Wireshark 4.0 records the handle under a UUID equal to the request's Ending Handle, so
            // it no longer opens a service there; here the handle is forgotten instead.
            record(found, nil, &context, itemAt..<(itemAt + 2))
            context.appendRangeInfo(found, end)
        }
        addAnswer(request, &context, at: reader.offset)
    }

    /// Reads the length byte of a Read By Type or Read By Group Type Response: the size of each
    /// entry of its list, `minimum` or more.
    private mutating func listLength(
        minimum: Int,
        _ entry: String,
        _ context: inout DissectionContext
    ) throws(DecodeError) -> Int {
        let length = Int(try reader.readUInt8())
        context.tree.add(f[.length], .unsigned(UInt64(length)), at..<(at + 1), source: src)
        guard length >= minimum else {
            throw DecodeError(.malformed, offset: at, "\(entry) has at least \(minimum) bytes, not \(length)")
        }
        return length
    }

    mutating func readByTypeResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let length = try listLength(minimum: 2, "each handle/value pair", &context)
        let request = takeRequest(context)
        setSummary(&context, "Read By Type Response, Attribute List Length: \(reader.remaining / length)")
        let type = request?.type
        let isCharacteristic = type == GATTNames.characteristic
        let isInclude = type == GATTNames.include
        let db = type == nil ? pdu.database : pdu.learningDatabase(&context, at: at..<(at + 1), source: src)
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var item = try reader.readSlice(length)
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + length), source: src)
            let handle = try item.readUInt16()
            let handleRange = itemAt..<(itemAt + 2)
            // Wireshark records each listed handle under the requested type before showing it.
            if let type {
                record(handle, RecordedHandle(uuid: type, role: .other), &context, handleRange)
            }
            if isCharacteristic, let db {
                let declaration = try CharacteristicDeclaration(&item)
                let (properties, valueHandle, uuid) = (
                    declaration.properties, declaration.valueHandle, declaration.uuid
                )
                learn(
                    AttributeInfo(.characteristicDeclaration, GATTNames.characteristic, about: uuid),
                    at: handle,
                    db,
                    &context,
                    handleRange
                )
                learn(AttributeInfo(.characteristicValue, uuid), at: valueHandle, db, &context, handleRange)
                addHandle(.handle, handle, handleRange, &context, db)
                context.addATTProperties(f, properties, (itemAt + 2)..<(itemAt + 3), source: src)
                addHandle(.characteristicValueHandle, valueHandle, (itemAt + 3)..<(itemAt + 5), &context, db)
                addUUID(uuid, (itemAt + 5)..<(itemAt + length), &context)
                record(
                    valueHandle,
                    RecordedHandle(uuid: uuid, role: .characteristic),
                    &context,
                    (itemAt + 3)..<(itemAt + 5)
                )
                if valueHandle <= handle {
                    context.expert(
                        .warning,
                        "The characteristic value handle is not after its declaration",
                        (itemAt + 3)..<(itemAt + 5),
                        source: src
                    )
                }
                context.appendUUIDInfo(uuid)
            } else if isInclude, let db {
                let included = try item.readUInt16()
                let end = try item.readUInt16()
                var uuid: BluetoothUUID? = nil
                switch item.remaining {
                case 0: break
                case 2: uuid = try item.readUUID(bytes: 2)
                default:
                    throw DecodeError(
                        .malformed,
                        offset: item.offset,
                        "an include declaration's value is 4 or 6 bytes, not \(length - 2)"
                    )
                }
                learn(AttributeInfo(.include, GATTNames.include, about: uuid), at: handle, db, &context, handleRange)
                if let uuid {
                    learnService(ServiceRange(start: included, end: end, uuid: uuid), db, &context, handleRange)
                }
                addHandle(.handle, handle, handleRange, &context, db)
                addHandle(.gattIncludedServiceHandle, included, (itemAt + 2)..<(itemAt + 4), &context, db)
                context.tree.add(f[.endingHandle], .unsigned(UInt64(end)), (itemAt + 4)..<(itemAt + 6), source: src)
                if let uuid {
                    addUUID(uuid, (itemAt + 6)..<(itemAt + 8), &context)
                    let includedRange = (itemAt + 2)..<(itemAt + 4)
                    record(included, RecordedHandle(uuid: uuid, role: .other), &context, includedRange)
                }
                let registry = context.registry
                context.appendInfo(
                    GATTNames.display(GATTNames.include) + ": " + (uuid.map { registry.uuidDisplay($0) } ?? "128-bit")
                )
            } else {
                if let type, let db, db[handle] == nil {
                    learn(AttributeInfo(.characteristicValue, type), at: handle, db, &context, handleRange)
                }
                addHandle(.handle, handle, handleRange, &context, db)
                context.appendHandleInfo(handle, db)
                addValue(item.readRest(), uuid: db?.uuid(handle) ?? type, decode: true, &context)
            }
            context.tree.close()
        }
        addRequestType(request, &context, at: reader.offset)
        addAnswer(request, &context, at: reader.offset)
    }

    mutating func readByGroupTypeResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let length = try listLength(minimum: 4, "each attribute data", &context)
        let request = takeRequest(context)
        setSummary(&context, "Read By Group Type Response, Attribute List Length: \(reader.remaining / length)")
        let type = request?.type
        // Without the request, a 6- or 20-byte list is taken as services: the only grouping
        // types GATT defines are the two service declarations.
        let isService =
            type == GATTNames.primaryService || type == GATTNames.secondaryService
            || (type == nil && (length == 6 || length == 20))
        let serviceType = type ?? GATTNames.primaryService
        let db = isService ? pdu.learningDatabase(&context, at: at..<(at + 1), source: src) : pdu.database
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var item = try reader.readSlice(length)
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + length), source: src)
            let handle = try item.readUInt16()
            let end = try item.readUInt16()
            let handleRange = itemAt..<(itemAt + 2)
            if isService, let db, item.remaining == 2 || item.remaining == 16 {
                let uuidSize = item.remaining
                let uuid = try item.readUUID(bytes: uuidSize)
                let kind: AttributeInfo.Kind =
                    serviceType == GATTNames.secondaryService ? .secondaryService : .primaryService
                learn(AttributeInfo(kind, serviceType, about: uuid), at: handle, db, &context, handleRange)
                learnService(ServiceRange(start: handle, end: end, uuid: uuid), db, &context, handleRange)
                addHandle(.handle, handle, handleRange, &context, db)
                context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
                addUUID(uuid, (itemAt + 4)..<(itemAt + 4 + uuidSize), &context)
                // Wireshark records services only from the answer to a service request it saw.
                if type != nil {
                    record(handle, RecordedHandle(uuid: uuid, role: .service), &context, handleRange)
                }
                context.appendUUIDInfo(uuid)
            } else {
                addHandle(.handle, handle, handleRange, &context, db)
                context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
                addValue(item.readRest(), uuid: nil, decode: false, &context)
                context.appendRangeInfo(handle, end)
            }
            if end < handle {
                context.expert(
                    .warning,
                    "The group end handle is before the group's first handle",
                    (itemAt + 2)..<(itemAt + 4),
                    source: src
                )
            }
            context.tree.close()
        }
        addRequestType(request, &context, at: reader.offset)
        addAnswer(request, &context, at: reader.offset)
    }
}

extension DissectionContext {
    /// Appends a UUID's name (`DissectorRegistry.uuidDisplay`) to the summary.
    mutating func appendUUIDInfo(_ uuid: BluetoothUUID) {
        let registry = self.registry
        appendInfo(registry.uuidDisplay(uuid))
    }
}

extension DissectorRegistry {
    /// A UUID's name for summaries: the one a plugin or module gave it, else the SIG's.
    func uuidDisplay(_ uuid: BluetoothUUID) -> String {
        name(of: uuid) ?? GATTNames.display(uuid)
    }
}
