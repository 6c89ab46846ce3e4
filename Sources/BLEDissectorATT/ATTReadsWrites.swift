import BLEInspectCore

/// Reads, writes and server-initiated PDUs (`ATTOpcodes.table`'s rows).
extension ATTParameters {
    // MARK: - Reads

    /// Read Request and Read Blob Request.
    mutating func readRequest(_ context: inout DissectionContext) throws(DecodeError) {
        let db = pdu.database
        let handle = try readHandle(.handle, &context, db)
        var offset: UInt16 = 0
        if opcode == 0x0C {
            let offsetAt = reader.offset
            offset = try reader.readUInt16()
            context.tree.add(f[.offset], .unsigned(UInt64(offset)), offsetAt..<(offsetAt + 2), source: src)
        }
        let isBlob = opcode == 0x0C
        setSummary(&context)
        context.appendHandleInfo(handle, db)
        if isBlob { context.appendInfo("Offset: \(offset)") }
        remember(handle: handle, offset: offset, &context)
    }

    /// Read Response and Read Blob Response.
    mutating func readResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let request = takeRequest(context)
        let db = pdu.database
        if let request { addHandle(.handle, request.handle, at..<at, &context, db) }
        setSummary(&context)
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
        let uuid = request.flatMap { db?.uuid($0.handle) }
        addValue(value, uuid: uuid, decode: whole, &context)
        addAnswer(request, &context, at: reader.offset)
    }

    /// Read Multiple Request and Read Multiple Variable Request.
    mutating func readMultipleRequest(_ context: inout DissectionContext) throws(DecodeError) {
        let db = pdu.database
        setSummary(&context)
        if reader.remaining < 4 {
            context.expert(
                .warning,
                "\(name) needs at least two handles",
                at..<(at + reader.remaining),
                source: src
            )
        }
        var request = pendingRequest(context)
        request.handles.reserveCapacity(min(reader.remaining / 2, PendingRequest.maximumHandles))
        while !reader.isAtEnd {
            let handle = try readHandle(.handle, &context, db)
            if request.handles.count < PendingRequest.maximumHandles { request.handles.append(handle) }
            context.appendHandleInfo(handle, db)
        }
        remember(request, &context)
    }

    mutating func readMultipleResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let request = takeRequest(context)
        let db = pdu.database
        setSummary(&context, "Read Multiple Response")
        for handle in request?.handles ?? [] {
            addHandle(.handle, handle, at..<at, &context, db)
            context.appendHandleInfo(handle, db)
        }
        // The values are concatenated without lengths, so they are not split or decoded.
        let rest = reader.readRest()
        addValue(rest, uuid: nil, decode: false, &context)
        addAnswer(request, &context, at: reader.offset)
    }

    mutating func readMultipleVariableResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let request = takeRequest(context)
        let db = pdu.database
        setSummary(&context, "Read Multiple Variable Response")
        var index = 0
        while !reader.isAtEnd {
            let itemAt = reader.offset
            let handle: UInt16? = request.flatMap { index < $0.handles.count ? $0.handles[index] : nil }
            index += 1
            guard reader.remaining >= 2 else {
                // The response is cut at ATT_MTU - 1 bytes, which may fall inside a length field.
                context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + reader.remaining), source: src)
                if let handle { addHandle(.handle, handle, itemAt..<itemAt, &context, db) }
                context.expert(
                    .note,
                    "The last length field is cut off: the response filled the ATT_MTU",
                    itemAt..<(itemAt + reader.remaining),
                    source: src
                )
                let rest = reader.readRest()
                addValue(rest, uuid: nil, decode: false, &context)
                context.tree.close()
                break
            }
            let length = try reader.readUInt16()
            let available = min(Int(length), reader.remaining)
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + 2 + available), source: src)
            if let handle {
                addHandle(.handle, handle, itemAt..<itemAt, &context, db)
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
            let uuid = handle.flatMap { db?.uuid($0) }
            addValue(value, uuid: uuid, decode: available == Int(length), &context)
            context.tree.close()
        }
        addAnswer(request, &context, at: reader.offset)
    }

    // MARK: - Writes

    /// Write Request, Write Command and Signed Write Command.
    mutating func write(_ context: inout DissectionContext) throws(DecodeError) {
        let pdu = pdu
        let handle = try pdu.withDatabase { (db) throws(DecodeError) in
            let handle = try readHandle(.handle, &context, db)
            // A signed write ends with a 12-byte signature (its row's length rule marks one too
            // short).
            let valueLength = opcode == 0xD2 ? max(0, reader.remaining - 12) : reader.remaining
            setSummary(&context)
            context.appendHandleInfo(handle, db)
            let value = try reader.readSlice(valueLength)
            addValue(value, uuid: db?.uuid(handle), decode: true, &context)
            return handle
        }
        if opcode == 0xD2 {
            try context.addUInt32(f[.signCounter], &reader)
            let macAt = reader.offset
            try reader.skip(8)
            context.tree.add(f[.signature], .bytes, macAt..<(macAt + 8), source: src)
        }
        if opcode == 0x12 {
            remember(handle: handle, &context)
        }
    }

    /// Write Response, Execute Write Response and Handle Value Confirmation.
    mutating func emptyResponse(_ context: inout DissectionContext) throws(DecodeError) {
        let request = takeRequest(context)
        let db = pdu.database
        // An Execute Write Response names no handle; the others echo their request's.
        let hasHandle = answers != 0x18
        if hasHandle, let request { addHandle(.handle, request.handle, at..<at, &context, db) }
        setSummary(&context, name + (hasHandle ? (request.map { ", " + ATTInfo.handle($0.handle, db) } ?? "") : ""))
        addAnswer(request, &context, at: at)
    }

    /// Prepare Write Request and Response.
    mutating func prepareWrite(_ context: inout DissectionContext) throws(DecodeError) {
        let db = pdu.database
        let handle = try readHandle(.handle, &context, db)
        let offset = try context.addUInt16(f[.offset], &reader)
        setSummary(&context, name + ", " + ATTInfo.handle(handle, db) + ", Offset: \(offset)")
        // Part of a long value: shown, not decoded.
        let rest = reader.readRest()
        addValue(rest, uuid: nil, decode: false, &context)
        if opcode == 0x16 {
            remember(handle: handle, offset: offset, &context)
        } else {
            let request = takeRequest(context)
            if let request, request.handle != handle || request.offset != offset {
                context.expert(
                    .warning,
                    "The response does not echo the request's handle and offset",
                    at..<(at + 4),
                    source: src
                )
            }
            addAnswer(request, &context, at: reader.offset)
        }
    }

    mutating func executeWriteRequest(_ context: inout DissectionContext) throws(DecodeError) {
        let flags = try context.addUInt8(f[.flags], &reader)
        if flags > 1 {
            context.expert(.warning, "Execute Write flags \(flags) are reserved", at..<(at + 1), source: src)
        }
        setSummary(
            &context,
            "Execute Write Request, " + (flags == 0 ? "Cancel All" : flags == 1 ? "Immediately Write All" : "Reserved")
        )
        remember(pendingRequest(context), &context)
    }

    // MARK: - Server-initiated

    /// Handle Value Notification and Indication.
    mutating func handleValue(_ context: inout DissectionContext) throws(DecodeError) {
        let pdu = pdu
        let handle = try pdu.withDatabase { (db) throws(DecodeError) in
            let handle = try readHandle(.handle, &context, db)
            setSummary(&context)
            context.appendHandleInfo(handle, db)
            let rest = reader.readRest()
            addValue(rest, uuid: db?.uuid(handle), decode: true, &context)
            return handle
        }
        if opcode == 0x1D {
            remember(handle: handle, &context)
        }
    }

    mutating func multipleHandleValueNotification(_ context: inout DissectionContext) throws(DecodeError) {
        let db = pdu.database
        setSummary(&context, "Multiple Handle Value Notification")
        while !reader.isAtEnd {
            let itemAt = reader.offset
            var header = try reader.readSlice(4)
            let handle = try header.readUInt16()
            let length = try header.readUInt16()
            let value = try reader.readSlice(Int(length))
            context.tree.open(f[.attributeData], .none, itemAt..<(itemAt + 4 + Int(length)), source: src)
            addHandle(.handle, handle, itemAt..<(itemAt + 2), &context, db)
            context.tree.add(f[.gattValueLength], .unsigned(UInt64(length)), (itemAt + 2)..<(itemAt + 4), source: src)
            context.appendHandleInfo(handle, db)
            addValue(value, uuid: db?.uuid(handle), decode: true, &context)
            context.tree.close()
        }
    }
}
