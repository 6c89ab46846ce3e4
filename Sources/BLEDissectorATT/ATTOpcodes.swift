import BLEInspectCore

/// Decodes the parameters of one ATT opcode (bound once per opcode in `StandardTables.attOpcode`),
/// pairs requests with responses, learns the GATT database from discovery responses, and names
/// the attribute behind every handle it shows.
struct ATTOpcodeDissector: Dissector {
    let f: Fields<ATTField>
    let opcode: UInt8

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let here = reader.offset..<(reader.offset + reader.remaining)
        let pdu = ATTPDU(&context, at: here, source: reader.source)
        switch opcode {
        case 0x01: try errorResponse(&reader, &context, pdu)
        case 0x02: try exchangeMTURequest(&reader, &context, pdu)
        case 0x03: try exchangeMTUResponse(&reader, &context, pdu)
        case 0x04, 0x06, 0x08, 0x10: try rangeRequest(&reader, &context, pdu)
        case 0x05: try findInformationResponse(&reader, &context, pdu)
        case 0x07: try findByTypeValueResponse(&reader, &context, pdu)
        case 0x09: try readByTypeResponse(&reader, &context, pdu)
        case 0x11: try readByGroupTypeResponse(&reader, &context, pdu)
        case 0x0A, 0x0C: try readRequest(&reader, &context, pdu)
        case 0x0B, 0x0D: try readResponse(&reader, &context, pdu)
        case 0x0E, 0x20: try readMultipleRequest(&reader, &context, pdu)
        case 0x0F: try readMultipleResponse(&reader, &context, pdu)
        case 0x21: try readMultipleVariableResponse(&reader, &context, pdu)
        case 0x12, 0x52, 0xD2: try write(&reader, &context, pdu)
        case 0x13, 0x19, 0x1E: try emptyResponse(&reader, &context, pdu)
        case 0x16, 0x17: try prepareWrite(&reader, &context, pdu)
        case 0x18: try executeWriteRequest(&reader, &context, pdu)
        case 0x1B, 0x1D: try handleValue(&reader, &context, pdu)
        case 0x23: try multipleHandleValueNotification(&reader, &context, pdu)
        default: break
        }
    }

    private var name: String { ATTNames.opcodeName(opcode) }

    // MARK: - Error and MTU

    private func errorResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let opcodeAt = reader.offset
        let requestOpcode = try reader.readUInt8()
        context.addATTOpcode(f, .reqOpcodeInError, requestOpcode, opcodeAt..<(opcodeAt + 1), source: src)
        let db = pdu.database
        let handle = try readHandle(.handleInError, &reader, &context, pdu, db)
        let code = try context.addUInt8(f[.errorCode], &reader)
        let request = pdu.bearer.take(requestOpcode: requestOpcode, answeredFrom: context.direction)
        let direction = context.direction
        context.setInfo(parts: ATTInfo.prefix(direction), "Error Response - ", ATTNames.errorName(code), ", ")
        if context.wantsInfo { context.tree.appendInfo(ATTNames.opcodeName(requestOpcode)) }
        context.appendHandleInfo(handle, db)
        addRequestType(request, &context, at: reader.offset, source: src)
        addAnswer(request, &context, at: reader.offset, source: src)
        try reader.expectEnd()
    }

    private func exchangeMTURequest(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let mtu = try context.addUInt16(f[.clientRxMTU], &reader)
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Exchange MTU Request, Client Rx MTU: \(mtu)")
        if mtu < 23 {
            context.expert(
                .warning,
                "Client Rx MTU \(mtu) is below the minimum ATT_MTU of 23",
                at..<(at + 2),
                source: src
            )
        }
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
        remember(request, pdu, &context, at: at, source: src)
        try reader.expectEnd()
    }

    private func exchangeMTUResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let mtu = try context.addUInt16(f[.serverRxMTU], &reader)
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Exchange MTU Response, Server Rx MTU: \(mtu)")
        if mtu < 23 {
            context.expert(
                .warning,
                "Server Rx MTU \(mtu) is below the minimum ATT_MTU of 23",
                at..<(at + 2),
                source: src
            )
        }
        let request = pdu.bearer.take(requestOpcode: 0x02, answeredFrom: context.direction)
        if let request {
            let agreed = max(23, min(request.mtu, mtu))
            pdu.bearer.mtu = agreed
            pdu.bearer.mtuExchanged = true
            context.tree.add(f[.gattMTU], .unsigned(UInt64(agreed)), at..<at, source: src)
            context.appendInfo("ATT MTU: \(agreed)")
        }
        addAnswer(request, &context, at: reader.offset, source: src)
        try reader.expectEnd()
    }

    // MARK: - Discovery

    /// Find Information, Find By Type Value, Read By Type and Read By Group Type requests.
    private func rangeRequest(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
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
            try reader.expectEnd()
        case 0x06:
            let typeAt = reader.offset
            let type = try reader.readUUID(bytes: 2)
            addUUID(type, typeAt..<(typeAt + 2), &context, source: src)
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
            addUUID(type, typeAt..<(typeAt + count), &context, source: src)
            request.type = type
        }
        let direction = context.direction
        let opcodeName = name
        let type = request.type
        let valueUUID = request.valueUUID
        context.setInfo(parts: ATTInfo.prefix(direction), opcodeName)
        if let type { context.appendUUIDInfo(type) }
        if let valueUUID { context.appendUUIDInfo(valueUUID) }
        context.appendRangeInfo(start, end)
        remember(request, pdu, &context, at: at, source: src)
    }

    private func findInformationResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let format = try context.addUInt8(f[.uuidFormat], &reader)
        let uuidSize: Int
        switch format {
        case 1: uuidSize = 2
        case 2: uuidSize = 16
        default:
            throw DecodeError(.malformed, offset: at, "UUID format \(format) is neither 1 (16-bit) nor 2 (128-bit)")
        }
        let request = pdu.bearer.take(requestOpcode: 0x04, answeredFrom: context.direction)
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Find Information Response")
        let db = pdu.learningDatabase(&context, at: at..<(at + 1), source: src)
        if reader.isAtEnd {
            context.expert(.warning, "Find Information Response without information data", at..<(at + 1), source: src)
        }
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var item = try reader.readSlice(2 + uuidSize)
            let handle = try item.readUInt16()
            let uuid = try item.readUUID(bytes: uuidSize)
            learnFound(handle, uuid, db, &context, itemAt..<(itemAt + 2), source: src)
            context.tree.open(f[.informationData], .none, itemAt..<(itemAt + 2 + uuidSize), source: src)
            addHandle(.handle, handle, itemAt..<(itemAt + 2), &context, pdu, db, source: src)
            addUUID(uuid, (itemAt + 2)..<(itemAt + 2 + uuidSize), &context, source: src)
            context.tree.close()
            record(handle, RecordedHandle(uuid: uuid, role: .other), pdu, &context, itemAt..<(itemAt + 2), source: src)
            context.appendHandleInfo(handle, db)
        }
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    private func findByTypeValueResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let request = pdu.bearer.take(requestOpcode: 0x06, answeredFrom: context.direction)
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Find By Type Value Response")
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
                    itemAt..<(itemAt + 4),
                    src
                )
                learnService(
                    ServiceRange(start: found, end: end, uuid: service.uuid),
                    db,
                    &context,
                    itemAt..<(itemAt + 4),
                    src
                )
            }
            context.tree.open(f[.handlesInfo], .none, itemAt..<(itemAt + 4), source: src)
            addHandle(.handle, found, itemAt..<(itemAt + 2), &context, pdu, db, source: src)
            context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
            context.tree.close()
            // Wireshark 4.0 records the handle under a UUID equal to the request's Ending Handle, so
            // it no longer opens a service there; here the handle is forgotten instead.
            record(found, nil, pdu, &context, itemAt..<(itemAt + 2), source: src)
            context.appendRangeInfo(found, end)
        }
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    private func readByTypeResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let length = Int(try reader.readUInt8())
        context.tree.add(f[.length], .unsigned(UInt64(length)), at..<(at + 1), source: src)
        guard length >= 2 else {
            throw DecodeError(.malformed, offset: at, "each handle/value pair has at least 2 bytes, not \(length)")
        }
        let request = pdu.bearer.take(requestOpcode: 0x08, answeredFrom: context.direction)
        let count = reader.remaining / length
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Read By Type Response, Attribute List Length: \(count)")
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
                record(handle, RecordedHandle(uuid: type, role: .other), pdu, &context, handleRange, source: src)
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
                    handleRange,
                    src
                )
                learn(AttributeInfo(.characteristicValue, uuid), at: valueHandle, db, &context, handleRange, src)
                addHandle(.handle, handle, handleRange, &context, pdu, db, source: src)
                context.addATTProperties(f, properties, (itemAt + 2)..<(itemAt + 3), source: src)
                addHandle(
                    .characteristicValueHandle,
                    valueHandle,
                    (itemAt + 3)..<(itemAt + 5),
                    &context,
                    pdu,
                    db,
                    source: src
                )
                addUUID(uuid, (itemAt + 5)..<(itemAt + length), &context, source: src)
                record(
                    valueHandle,
                    RecordedHandle(uuid: uuid, role: .characteristic),
                    pdu,
                    &context,
                    (itemAt + 3)..<(itemAt + 5),
                    source: src
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
                learn(
                    AttributeInfo(.include, GATTNames.include, about: uuid),
                    at: handle,
                    db,
                    &context,
                    handleRange,
                    src
                )
                if let uuid {
                    learnService(ServiceRange(start: included, end: end, uuid: uuid), db, &context, handleRange, src)
                }
                addHandle(.handle, handle, handleRange, &context, pdu, db, source: src)
                addHandle(
                    .gattIncludedServiceHandle,
                    included,
                    (itemAt + 2)..<(itemAt + 4),
                    &context,
                    pdu,
                    db,
                    source: src
                )
                context.tree.add(f[.endingHandle], .unsigned(UInt64(end)), (itemAt + 4)..<(itemAt + 6), source: src)
                if let uuid {
                    addUUID(uuid, (itemAt + 6)..<(itemAt + 8), &context, source: src)
                    let includedRange = (itemAt + 2)..<(itemAt + 4)
                    record(
                        included,
                        RecordedHandle(uuid: uuid, role: .other),
                        pdu,
                        &context,
                        includedRange,
                        source: src
                    )
                }
                let registry = context.registry
                context.appendInfo(
                    GATTNames.display(GATTNames.include) + ": " + (uuid.map { registry.uuidDisplay($0) } ?? "128-bit")
                )
            } else {
                if let type, let db, db[handle] == nil {
                    learn(AttributeInfo(.characteristicValue, type), at: handle, db, &context, handleRange, src)
                }
                addHandle(.handle, handle, handleRange, &context, pdu, db, source: src)
                context.appendHandleInfo(handle, db)
                addValue(item.readRest(), uuid: db?[handle]?.uuid ?? type, decode: true, &context, pdu)
            }
            context.tree.close()
        }
        addRequestType(request, &context, at: reader.offset, source: src)
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    private func readByGroupTypeResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let length = Int(try reader.readUInt8())
        context.tree.add(f[.length], .unsigned(UInt64(length)), at..<(at + 1), source: src)
        guard length >= 4 else {
            throw DecodeError(.malformed, offset: at, "each attribute data has at least 4 bytes, not \(length)")
        }
        let request = pdu.bearer.take(requestOpcode: 0x10, answeredFrom: context.direction)
        let count = reader.remaining / length
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Read By Group Type Response, Attribute List Length: \(count)")
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
                learn(AttributeInfo(kind, serviceType, about: uuid), at: handle, db, &context, handleRange, src)
                learnService(ServiceRange(start: handle, end: end, uuid: uuid), db, &context, handleRange, src)
                addHandle(.handle, handle, handleRange, &context, pdu, db, source: src)
                context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
                addUUID(uuid, (itemAt + 4)..<(itemAt + 4 + uuidSize), &context, source: src)
                // Wireshark records services only from the answer to a service request it saw.
                if type != nil {
                    record(handle, RecordedHandle(uuid: uuid, role: .service), pdu, &context, handleRange, source: src)
                }
                context.appendUUIDInfo(uuid)
            } else {
                addHandle(.handle, handle, handleRange, &context, pdu, db, source: src)
                context.tree.add(f[.groupEndHandle], .unsigned(UInt64(end)), (itemAt + 2)..<(itemAt + 4), source: src)
                addValue(item.readRest(), uuid: nil, decode: false, &context, pdu)
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
        addRequestType(request, &context, at: reader.offset, source: src)
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    // MARK: - Reads

    /// Read Request and Read Blob Request.
    private func readRequest(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let db = pdu.database
        let handle = try readHandle(.handle, &reader, &context, pdu, db)
        var offset: UInt16 = 0
        if opcode == 0x0C {
            let offsetAt = reader.offset
            offset = try reader.readUInt16()
            context.tree.add(f[.offset], .unsigned(UInt64(offset)), offsetAt..<(offsetAt + 2), source: src)
        }
        let direction = context.direction
        let opcodeName = name
        let isBlob = opcode == 0x0C
        context.setInfo(parts: ATTInfo.prefix(direction), opcodeName)
        context.appendHandleInfo(handle, db)
        if isBlob { context.appendInfo("Offset: \(offset)") }
        var request = pendingRequest(context)
        request.handle = handle
        request.offset = offset
        remember(request, pdu, &context, at: at, source: src)
        try reader.expectEnd()
    }

    /// Read Response and Read Blob Response.
    private func readResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let request = pdu.bearer.take(requestOpcode: opcode &- 1, answeredFrom: context.direction)
        let db = pdu.database
        if let request { addHandle(.handle, request.handle, at..<at, &context, pdu, db, source: src) }
        let direction = context.direction
        let opcodeName = name
        context.setInfo(parts: ATTInfo.prefix(direction), opcodeName)
        if let request { context.appendHandleInfo(request.handle, db) }
        let value = reader.readRest()
        if opcode == 0x0B, pdu.bearer.mtuExchanged, value.remaining == Int(pdu.bearer.mtu) - 1 {
            context.expert(
                .note,
                "The value fills the ATT_MTU; it may be longer (Read Blob reads the rest)",
                value.offset..<(value.offset + value.remaining),
                source: src
            )
        }
        // A blob from a non-zero offset is a piece of the value: it is not decoded.
        let whole = opcode == 0x0B || request?.offset == 0
        let uuid = request.flatMap { db?[$0.handle]?.uuid }
        addValue(value, uuid: uuid, decode: whole, &context, pdu)
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    /// Read Multiple Request and Read Multiple Variable Request.
    private func readMultipleRequest(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let db = pdu.database
        let direction = context.direction
        let opcodeName = name
        context.setInfo(ATTInfo.prefix(direction) + opcodeName)
        if reader.remaining < 4 {
            context.expert(
                .warning,
                "\(opcodeName) needs at least two handles",
                at..<(at + reader.remaining),
                source: src
            )
        }
        var request = pendingRequest(context)
        request.handles.reserveCapacity(min(reader.remaining / 2, PendingRequest.maximumHandles))
        while !reader.isAtEnd {
            let handle = try readHandle(.handle, &reader, &context, pdu, db)
            if request.handles.count < PendingRequest.maximumHandles { request.handles.append(handle) }
            context.appendHandleInfo(handle, db)
        }
        remember(request, pdu, &context, at: at, source: src)
    }

    private func readMultipleResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let request = pdu.bearer.take(requestOpcode: 0x0E, answeredFrom: context.direction)
        let db = pdu.database
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Read Multiple Response")
        for handle in request?.handles ?? [] {
            addHandle(.handle, handle, at..<at, &context, pdu, db, source: src)
            context.appendHandleInfo(handle, db)
        }
        // The values are concatenated without lengths, so they are not split or decoded.
        addValue(reader.readRest(), uuid: nil, decode: false, &context, pdu)
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    private func readMultipleVariableResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let request = pdu.bearer.take(requestOpcode: 0x20, answeredFrom: context.direction)
        let db = pdu.database
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Read Multiple Variable Response")
        var index = 0
        while !reader.isAtEnd {
            let itemAt = reader.offset
            let handle: UInt16? = request.flatMap { index < $0.handles.count ? $0.handles[index] : nil }
            index += 1
            guard reader.remaining >= 2 else {
                // The response is cut at ATT_MTU - 1 bytes, which may fall inside a length field.
                context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + reader.remaining), source: src)
                if let handle { addHandle(.handle, handle, itemAt..<itemAt, &context, pdu, db, source: src) }
                context.expert(
                    .note,
                    "The last length field is cut off: the response filled the ATT_MTU",
                    itemAt..<(itemAt + reader.remaining),
                    source: src
                )
                addValue(reader.readRest(), uuid: nil, decode: false, &context, pdu)
                context.tree.close()
                break
            }
            let length = try reader.readUInt16()
            let available = min(Int(length), reader.remaining)
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + 2 + available), source: src)
            if let handle {
                addHandle(.handle, handle, itemAt..<itemAt, &context, pdu, db, source: src)
                context.appendHandleInfo(handle, db)
            }
            context.tree.add(f[.gattValueLength], .unsigned(UInt64(length)), itemAt..<(itemAt + 2), source: src)
            let value = try reader.readSlice(available)
            if available < Int(length) {
                context.expert(
                    .note,
                    "Value cut to fit the ATT_MTU: \(available) of \(length) bytes",
                    value.offset..<(value.offset + available),
                    source: src
                )
            }
            let uuid = handle.flatMap { db?[$0]?.uuid }
            addValue(value, uuid: uuid, decode: available == Int(length), &context, pdu)
            context.tree.close()
        }
        addAnswer(request, &context, at: reader.offset, source: src)
    }

    // MARK: - Writes

    /// Write Request, Write Command and Signed Write Command.
    private func write(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let db = pdu.database
        let handle = try readHandle(.handle, &reader, &context, pdu, db)
        var valueLength = reader.remaining
        if opcode == 0xD2 {
            guard valueLength >= 12 else {
                throw DecodeError(
                    .truncated,
                    offset: reader.offset,
                    "a signed write ends with a 12-byte authentication signature; \(valueLength) bytes left"
                )
            }
            valueLength -= 12
        }
        let direction = context.direction
        let opcodeName = name
        context.setInfo(parts: ATTInfo.prefix(direction), opcodeName)
        context.appendHandleInfo(handle, db)
        let value = try reader.readSlice(valueLength)
        addValue(value, uuid: db?[handle]?.uuid, decode: true, &context, pdu)
        if opcode == 0xD2 {
            try context.addUInt32(f[.signCounter], &reader)
            let macAt = reader.offset
            try reader.skip(8)
            context.tree.add(f[.signature], .bytes, macAt..<(macAt + 8), source: src)
        }
        if opcode == 0x12 {
            var request = pendingRequest(context)
            request.handle = handle
            remember(request, pdu, &context, at: at, source: src)
        }
    }

    /// Write Response, Execute Write Response and Handle Value Confirmation.
    private func emptyResponse(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let requestOpcode: UInt8 =
            switch opcode {
            case 0x13: 0x12
            case 0x19: 0x18
            default: 0x1D
            }
        let request = pdu.bearer.take(requestOpcode: requestOpcode, answeredFrom: context.direction)
        let db = pdu.database
        let hasHandle = requestOpcode != 0x18
        if hasHandle, let request { addHandle(.handle, request.handle, at..<at, &context, pdu, db, source: src) }
        let direction = context.direction
        let opcodeName = name
        context.setInfo(
            ATTInfo.prefix(direction) + opcodeName
                + (hasHandle ? (request.map { ", " + ATTInfo.handle($0.handle, db) } ?? "") : "")
        )
        addAnswer(request, &context, at: at, source: src)
        try reader.expectEnd()
    }

    /// Prepare Write Request and Response.
    private func prepareWrite(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let db = pdu.database
        let handle = try readHandle(.handle, &reader, &context, pdu, db)
        let offset = try context.addUInt16(f[.offset], &reader)
        let direction = context.direction
        let opcodeName = name
        context.setInfo(
            ATTInfo.prefix(direction) + opcodeName + ", " + ATTInfo.handle(handle, db) + ", Offset: \(offset)"
        )
        // Part of a long value: shown, not decoded.
        addValue(reader.readRest(), uuid: nil, decode: false, &context, pdu)
        if opcode == 0x16 {
            var request = pendingRequest(context)
            request.handle = handle
            request.offset = offset
            remember(request, pdu, &context, at: at, source: src)
        } else {
            let request = pdu.bearer.take(requestOpcode: 0x16, answeredFrom: context.direction)
            if let request, request.handle != handle || request.offset != offset {
                context.expert(
                    .warning,
                    "The response does not echo the request's handle and offset",
                    at..<(at + 4),
                    source: src
                )
            }
            addAnswer(request, &context, at: reader.offset, source: src)
        }
    }

    private func executeWriteRequest(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let flags = try context.addUInt8(f[.flags], &reader)
        if flags > 1 {
            context.expert(.warning, "Execute Write flags \(flags) are reserved", at..<(at + 1), source: src)
        }
        let direction = context.direction
        context.setInfo(
            ATTInfo.prefix(direction) + "Execute Write Request, "
                + (flags == 0 ? "Cancel All" : flags == 1 ? "Immediately Write All" : "Reserved")
        )
        remember(pendingRequest(context), pdu, &context, at: at, source: src)
        try reader.expectEnd()
    }

    // MARK: - Server-initiated

    /// Handle Value Notification and Indication.
    private func handleValue(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let at = reader.offset
        let db = pdu.database
        let handle = try readHandle(.handle, &reader, &context, pdu, db)
        let direction = context.direction
        let opcodeName = name
        context.setInfo(parts: ATTInfo.prefix(direction), opcodeName)
        context.appendHandleInfo(handle, db)
        addValue(reader.readRest(), uuid: db?[handle]?.uuid, decode: true, &context, pdu)
        if opcode == 0x1D {
            var request = pendingRequest(context)
            request.handle = handle
            remember(request, pdu, &context, at: at, source: src)
        }
    }

    private func multipleHandleValueNotification(
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) throws(DecodeError) {
        let src = reader.source
        let db = pdu.database
        let direction = context.direction
        context.setInfo(ATTInfo.prefix(direction) + "Multiple Handle Value Notification")
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var header = try reader.readSlice(4)
            let handle = try header.readUInt16()
            let length = try header.readUInt16()
            let value = try reader.readSlice(Int(length))
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + 4 + Int(length)), source: src)
            addHandle(.handle, handle, itemAt..<(itemAt + 2), &context, pdu, db, source: src)
            context.tree.add(f[.gattValueLength], .unsigned(UInt64(length)), (itemAt + 2)..<(itemAt + 4), source: src)
            context.appendHandleInfo(handle, db)
            addValue(value, uuid: db?[handle]?.uuid, decode: true, &context, pdu)
            context.tree.close()
        }
    }

    // MARK: - Helpers

    private func pendingRequest(_ context: DissectionContext) -> PendingRequest {
        PendingRequest(
            opcode: opcode,
            frame: context.frameNumber,
            timestamp: context.timestamp,
            direction: context.direction
        )
    }

    private func remember(
        _ request: PendingRequest,
        _ pdu: ATTPDU,
        _ context: inout DissectionContext,
        at: Int,
        source: Int
    ) {
        // ATT is sequential on a bearer: one request (and, separately, one indication) in each
        // direction until its answer. EATT channels are merged here, so this is checked only on
        // the unenhanced bearer.
        if !pdu.enhanced, let earlier = pdu.bearer.outstanding(like: request) {
            context.expert(
                .note,
                (request.opcode == 0x1D ? "Indication" : "Request")
                    + " sent while #\(earlier.frame) has no answer yet: ATT allows one at a time, so that answer is missing",
                at..<at,
                source: source
            )
            // Its answer is missing (a sniffer lost it): the next answer belongs to this request.
            pdu.bearer.remove(earlier)
        }
        if let dropped = pdu.bearer.add(request) {
            context.expert(
                .note,
                "Limit reached: \(ATTBearer.maximumPending) requests are waiting for responses; the oldest (#\(dropped.frame)) "
                    + "is no longer matched",
                at..<at,
                source: source
            )
        }
    }

    /// Adds the request's frame and the response time to a response.
    private func addAnswer(_ request: PendingRequest?, _ context: inout DissectionContext, at: Int, source: Int) {
        guard let request else { return }
        context.tree.add(f[.requestInFrame], .unsigned(UInt64(request.frame)), at..<at, source: source)
        if let micros = Self.microseconds(from: request.timestamp, to: context.timestamp) {
            context.tree.add(f[.gattResponseTime], .unsigned(micros), at..<at, source: source)
        }
        context.appendInfo("response to #\(request.frame)")
    }

    static func microseconds(from start: Timestamp, to end: Timestamp) -> UInt64? {
        let d = end.difference(from: start)
        guard d.seconds >= 0 else { return nil }
        let (scaled, o1) = d.seconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = scaled.addingReportingOverflow(Int64(d.nanoseconds / 1000))
        guard !o1, !o2 else { return nil }
        return UInt64(sum)
    }

    /// Reads a handle and adds it, named from the database.
    private func readHandle(
        _ role: ATTField,
        _ reader: inout ByteReader,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU,
        _ db: GATTDatabase?
    ) throws(DecodeError) -> UInt16 {
        let at = reader.offset
        let handle = try reader.readUInt16()
        addHandle(role, handle, at..<(at + 2), &context, pdu, db, source: reader.source)
        return handle
    }

    /// Adds a btatt.handle field with what is known of it (`DissectionContext.addATTHandle`).
    private func addHandle(
        _ role: ATTField,
        _ handle: UInt16,
        _ range: Range<Int>,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU,
        _ db: GATTDatabase?,
        source: Int
    ) {
        context.addATTHandle(f, role, handle, range, db, pdu.record, source: source)
    }

    /// Records what Wireshark learns of `handle` from this PDU.
    private func record(
        _ handle: UInt16,
        _ entry: RecordedHandle?,
        _ pdu: ATTPDU,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        source: Int
    ) {
        context.recordATTHandle(handle, entry, pdu.record, range, source: source)
    }

    /// Adds the attribute type of a Read By Type or Read By Group Type request to its response or
    /// Error Response, as Wireshark does, after the PDU's own fields.
    private func addRequestType(_ request: PendingRequest?, _ context: inout DissectionContext, at: Int, source: Int) {
        guard let request, request.opcode == 0x08 || request.opcode == 0x10, let type = request.type else { return }
        context.addATTUUID(f, type, .uuid16, .uuid128, at..<at, source: source)
    }

    /// Adds a UUID as btatt.uuid16 or btatt.uuid128.
    private func addUUID(_ uuid: BluetoothUUID, _ range: Range<Int>, _ context: inout DissectionContext, source: Int) {
        if range.count == 2, let short = uuid.uuid16 {
            context.tree.add(f[.uuid16], .unsigned(UInt64(short)), range, source: source)
        } else {
            context.tree.add(f[.uuid128], .uuid(uuid), range, source: source)
        }
    }

    /// Adds an attribute value, and decodes it with the decoder bound to `uuid` in
    /// `StandardTables.gattUUID` when there is one and `decode` is set.
    private func addValue(
        _ value: ByteReader,
        uuid: BluetoothUUID?,
        decode: Bool,
        _ context: inout DissectionContext,
        _ pdu: ATTPDU
    ) {
        let range = value.offset..<(value.offset + value.remaining)
        context.tree.open(f[.value], .bytes, range, source: value.source)
        if decode, !value.isAtEnd, let uuid,
            let binding = context.registry.binding(StandardTables.gattUUID, DissectorKey(uuid))
        {
            pdu.state.valueOpcode = opcode
            pdu.state.valueConnection = pdu.connection
            var r = value
            context.run(binding.dissector, &r)
        }
        context.tree.close()
    }

    private func learn(
        _ info: AttributeInfo,
        at handle: UInt16,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        var info = info
        if let n = context.registry.name(of: info.uuid) { info.name = n }
        if let about = info.about, let n = context.registry.name(of: about) { info.aboutName = n }
        if !db.learn(handle, info) { noteFull(db, &context, range, source) }
    }

    private func learnService(
        _ service: ServiceRange,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        _ source: Int
    ) {
        if !db.learnService(service) { noteFull(db, &context, range, source) }
    }

    private func noteFull(_ db: GATTDatabase, _ context: inout DissectionContext, _ range: Range<Int>, _ source: Int) {
        guard !db.fullNoted else { return }
        db.fullNoted = true
        context.expert(
            .note,
            "Limit reached: GATT table of this connection is full (\(GATTDatabase.maximumAttributes) attributes, "
                + "\(GATTDatabase.maximumServices) services); later handles are not named",
            range,
            source: source
        )
    }

    /// Learns an attribute from a Find Information response: the type is known, the role is
    /// inferred from what is around it.
    private func learnFound(
        _ handle: UInt16,
        _ uuid: BluetoothUUID,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>,
        source: Int
    ) {
        if let existing = db[handle], existing.uuid == uuid { return }
        let info: AttributeInfo
        switch uuid {
        case GATTNames.primaryService: info = AttributeInfo(.primaryService, uuid)
        case GATTNames.secondaryService: info = AttributeInfo(.secondaryService, uuid)
        case GATTNames.include: info = AttributeInfo(.include, uuid)
        case GATTNames.characteristic: info = AttributeInfo(.characteristicDeclaration, uuid)
        default:
            if handle > 1, let previous = db[handle - 1], previous.kind == .characteristicDeclaration {
                info = AttributeInfo(.characteristicValue, uuid)
            } else if let owner = db.owningCharacteristic(of: handle) {
                info = AttributeInfo(.descriptor, uuid, about: owner)
            } else if let short = uuid.uuid16, short >= 0x2900, short <= 0x29FF {
                info = AttributeInfo(.descriptor, uuid)
            } else {
                info = AttributeInfo(.attribute, uuid)
            }
        }
        learn(info, at: handle, db, &context, range, source)
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
