import BLEInspectCore

/// What the ATT decoders share: pending requests, handles, values and the GATT database.
extension ATTParameters {
    // MARK: - Helpers

    func pendingRequest(_ context: DissectionContext) -> PendingRequest {
        PendingRequest(
            opcode: opcode,
            frame: context.frameNumber,
            timestamp: context.timestamp,
            direction: context.direction
        )
    }

    /// Remembers this request (or indication) of `handle`, from `offset`, until its answer.
    func remember(handle: UInt16, offset: UInt16 = 0, _ context: inout DissectionContext) {
        var request = pendingRequest(context)
        request.handle = handle
        request.offset = offset
        remember(request, &context)
    }

    /// Sets the summary to the direction's prefix ("Sent ", "Rcvd ") and `text`; the text is
    /// built only when a summary is wanted.
    func setSummary(_ context: inout DissectionContext, _ text: @autoclosure () -> String) {
        let direction = context.direction
        context.setInfo(parts: ATTInfo.prefix(direction), text())
    }

    /// Sets the summary to the direction's prefix and the row's name ("Sent Read Request").
    /// Mutating, as the other helpers of the common PDUs are: calling a method that is not from a
    /// decoder copies the whole of `self` (and counts its references).
    mutating func setSummary(_ context: inout DissectionContext) {
        guard context.tree.infoVersion != plainSummary else { return }
        // The row outlives the PDU's decoding (see `row`).
        unowned(unsafe) let row = row
        let direction = context.direction
        context.setInfo(parts: ATTInfo.prefix(direction), row.name)
    }

    /// Remembers `request` until its answer; the notes go at the start of the parameters.
    func remember(_ request: PendingRequest, _ context: inout DissectionContext) {
        // ATT is sequential on a bearer: one request (and, separately, one indication) in each
        // direction until its answer. EATT channels are merged here, so this is checked only on
        // the unenhanced bearer.
        if !pdu.enhanced, let earlier = pdu.bearer.outstanding(like: request) {
            context.expert(
                .note,
                (request.opcode == 0x1D ? "Indication" : "Request")
                    + " sent while #\(earlier.frame) has no answer yet: ATT allows one at a time, so that answer is missing",
                at..<at,
                source: src
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
                source: src
            )
        }
    }

    /// Adds the request's frame and the response time to a response.
    func addAnswer(_ request: PendingRequest?, _ context: inout DissectionContext, at: Int) {
        guard let request else { return }
        context.tree.add(f[.requestInFrame], .unsigned(UInt64(request.frame)), at..<at, source: src)
        if let micros = Self.microseconds(from: request.timestamp, to: context.timestamp) {
            context.tree.add(f[.gattResponseTime], .unsigned(micros), at..<at, source: src)
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
    mutating func readHandle(
        _ role: ATTField,
        _ context: inout DissectionContext,
        _ db: GATTDatabase?
    ) throws(DecodeError) -> UInt16 {
        let handleAt = reader.offset
        let handle = try reader.readUInt16()
        addHandle(role, handle, handleAt..<(handleAt + 2), &context, db)
        return handle
    }

    /// Adds a btatt.handle field with what is known of it (`DissectionContext.addATTHandle`).
    mutating func addHandle(
        _ role: ATTField,
        _ handle: UInt16,
        _ range: Range<Int>,
        _ context: inout DissectionContext,
        _ db: GATTDatabase?
    ) {
        context.addATTHandle(f, role, handle, range, db, pdu.record, source: src)
    }

    /// Records what Wireshark learns of `handle` from this PDU.
    func record(_ handle: UInt16, _ entry: RecordedHandle?, _ context: inout DissectionContext, _ range: Range<Int>) {
        context.recordATTHandle(handle, entry, pdu.record, range, source: src)
    }

    /// Adds the attribute type of a Read By Type or Read By Group Type request to its response or
    /// Error Response, as Wireshark does, after the PDU's own fields.
    func addRequestType(_ request: PendingRequest?, _ context: inout DissectionContext, at: Int) {
        guard let request, request.opcode == 0x08 || request.opcode == 0x10, let type = request.type else { return }
        context.addATTUUID(f, type, .uuid16, .uuid128, at..<at, source: src)
    }

    /// Adds a UUID as btatt.uuid16 or btatt.uuid128.
    func addUUID(_ uuid: BluetoothUUID, _ range: Range<Int>, _ context: inout DissectionContext) {
        if range.count == 2, let short = uuid.uuid16 {
            context.tree.add(f[.uuid16], .unsigned(UInt64(short)), range, source: src)
        } else {
            context.tree.add(f[.uuid128], .uuid(uuid), range, source: src)
        }
    }

    /// Adds an attribute value, and decodes it with the decoder bound to `uuid` in
    /// `StandardTables.gattUUID` when there is one and `decode` is set. Read `value` into a local
    /// first: `addValue(reader.readRest(), …)` would change `self` while calling its method.
    mutating func addValue(_ value: ByteReader, uuid: BluetoothUUID?, decode: Bool, _ context: inout DissectionContext)
    {
        let range = value.offset..<(value.offset + value.remaining)
        context.tree.open(f[.value], .bytes, range, source: value.source)
        if decode, !value.isAtEnd, let uuid,
            let binding = context.registry.binding(row.values, uuid)
        {
            context.packet.attOpcode = opcode
            pdu.state.valueConnection = pdu.connection
            var r = value
            context.run(binding.dissector, &r)
        }
        context.tree.close()
    }

    func learn(
        _ info: AttributeInfo,
        at handle: UInt16,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>
    ) {
        var info = info
        if let n = context.registry.name(of: info.uuid) { info.name = n }
        if let about = info.about, let n = context.registry.name(of: about) { info.aboutName = n }
        if !db.learn(handle, info) { noteFull(db, &context, range) }
    }

    func learnService(
        _ service: ServiceRange,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>
    ) {
        if !db.learnService(service) { noteFull(db, &context, range) }
    }

    func noteFull(_ db: GATTDatabase, _ context: inout DissectionContext, _ range: Range<Int>) {
        guard !db.fullNoted else { return }
        db.fullNoted = true
        context.expert(
            .note,
            "Limit reached: GATT table of this connection is full (\(GATTDatabase.maximumAttributes) attributes, "
                + "\(GATTDatabase.maximumServices) services); later handles are not named",
            range,
            source: src
        )
    }

    /// Learns an attribute from a Find Information response: the type is known, the role is
    /// inferred from what is around it.
    func learnFound(
        _ handle: UInt16,
        _ uuid: BluetoothUUID,
        _ db: GATTDatabase,
        _ context: inout DissectionContext,
        _ range: Range<Int>
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
        learn(info, at: handle, db, &context, range)
    }
}
