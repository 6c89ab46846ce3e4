import BLEInspectCore

/// Decodes the ATT PDU header (the opcode and its method, command and signature bits), then hands
/// the parameters to the decoder bound to the opcode in `StandardTables.attOpcode`.
///
/// Bound to L2CAP fixed channel 4 (each complete L2CAP PDU) and to PSM 0x0027 (each EATT SDU).
struct ATTDissector: Dissector {
    let f: Fields<ATTField>
    let next: Handoff<UInt8>

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = reader.offset
        let length = reader.remaining
        let source = reader.source
        context.tree.open(f.layer, .none, start..<(start + length), source: source)
        let opcode = try reader.readUInt8()
        context.addATTOpcode(f, .opcode, opcode, start..<(start + 1), source: source)
        // This module's opcode rows look the PDU up and set the summary themselves (one look-up
        // per PDU); for any other decoder, or none, this does.
        let ownRow = context.registry.isBound(next, opcode, byModule: ATTModule.name)
        let whole = start..<(start + length)
        if !ownRow { ATTPDU.open(&context, at: whole, source: source, opcode: opcode) }
        var parameters = reader.readRest()
        if !context.handOff(next, opcode, &parameters), ownRow {
            // Skipped (a caller that needs no ATT fields): the PDU still counts.
            ATTPDU.open(&context, at: whole, source: source, opcode: opcode)
        }
        context.tree.close()
    }
}

/// The bearer and GATT database a PDU belongs to.
///
/// The state and the bearer are held unretained, so that a PDU counts no reference to them: the
/// ATT state is the capture state's, for as long as the engine lives
/// (`DissectionContext.unretainedModule`), and a bearer leaves its table only when another is
/// made in its place (in `init`, for another connection's PDU) or its connection closes (an HCI
/// event, never within an ATT PDU). A PDU lives only while its frame is decoded.
struct ATTPDU {
    private let stateRef: Unmanaged<ATTState>
    let connection: ConnectionKey
    private let bearerRef: Unmanaged<ATTBearer>
    /// On an enhanced bearer (EATT).
    let enhanced: Bool
    /// The controller, whose record of handles (`record`) the PDU's handles are named from.
    let controller: UInt16

    /// Sets the summary to the opcode's name, looks the PDU (`range`, opcode included) up, and
    /// warns when it exceeds the bearer's ATT_MTU: what every PDU gets before its parameters.
    @discardableResult
    static func open(_ context: inout DissectionContext, at range: Range<Int>, source: Int, opcode: UInt8) -> ATTPDU {
        let direction = context.direction
        context.setInfo(parts: ATTInfo.prefix(direction), ATTNames.opcodeName(opcode))
        let pdu = ATTPDU(&context, at: range, source: source)
        let (exchanged, mtu) = pdu.bearerRef._withUnsafeGuaranteedRef { ($0.mtuExchanged, $0.mtu) }
        if exchanged, range.count > Int(mtu) {
            context.expert(
                .warning,
                "PDU of \(range.count) bytes exceeds the ATT_MTU of \(mtu)",
                range,
                source: source
            )
        }
        return pdu
    }

    init(_ context: inout DissectionContext, at range: Range<Int>, source: Int) {
        let stateRef = context.unretainedModule(ATTState.self) { ATTState() }
        self.stateRef = stateRef
        connection = context.packet.connection ?? ConnectionKey(controller: context.controller, handle: 0xFFFF)
        enhanced = context.packet.psm == 0x0027
        let key = BearerKey(connection: connection, enhanced: enhanced)
        var evicted = false
        bearerRef = stateRef._withUnsafeGuaranteedRef { $0.unretainedBearer(key, evicted: &evicted) }
        if evicted {
            context.expert(
                .note,
                "Limit reached: ATT state of \(ATTState.maximumConnections) bearers reached; an older bearer was forgotten",
                range,
                source: source
            )
        }
        var dropped = false
        let controller = context.controller
        self.controller = controller
        stateRef._withUnsafeGuaranteedRef { $0.makeHandleRecord(controller, evicted: &dropped) }
        if dropped {
            context.expert(
                .note,
                "Limit reached: handles of \(ATTState.maximumControllers) controllers recorded; an older record was forgotten",
                range,
                source: source
            )
        }
    }

    /// The capture's ATT state.
    var state: ATTState { stateRef.takeUnretainedValue() }
    /// The PDU's bearer.
    var bearer: ATTBearer { bearerRef.takeUnretainedValue() }

    /// Wireshark's record of the controller's handles: made when the PDU was opened, found
    /// again only by the decoders that name handles (holding it would count a reference for
    /// every PDU).
    var record: HandleRecord {
        var evicted = false
        let controller = controller
        return stateRef._withUnsafeGuaranteedRef { $0.handleRecord(controller, evicted: &evicted) }
    }

    /// Runs `body` with the connection's database, if anything was learned on it, counting no
    /// reference to it: for the decoders of the most common PDUs (the database stays in its table
    /// for the PDU, as the bearer does).
    func withDatabase<R, E: Error>(_ body: (GATTDatabase?) throws(E) -> R) throws(E) -> R {
        let connection = connection
        guard let db = stateRef._withUnsafeGuaranteedRef({ $0.unretainedDatabase(connection) }) else {
            return try body(nil)
        }
        return try db._withUnsafeGuaranteedRef { db in Result { () throws(E) in try body(db) } }.get()
    }

    /// The connection's database, if anything was learned on it.
    var database: GATTDatabase? {
        let connection = connection
        return stateRef._withUnsafeGuaranteedRef { $0.existingDatabase(connection) }
    }

    /// The connection's database for learning, made on first use.
    func learningDatabase(_ context: inout DissectionContext, at range: Range<Int>, source: Int) -> GATTDatabase {
        var evicted = false
        let connection = connection
        let db = stateRef._withUnsafeGuaranteedRef { $0.database(connection, evicted: &evicted) }
        if evicted {
            context.expert(
                .note,
                "Limit reached: GATT databases of \(ATTState.maximumConnections) connections reached; an older one was forgotten",
                range,
                source: source
            )
        }
        return db
    }
}

extension DissectionContext {
    /// Appends "Handle: 0x0010 (Battery Level)" to the summary, after a comma when it is not
    /// empty, without building a string.
    mutating func appendHandleInfo(_ handle: UInt16, _ db: GATTDatabase?) {
        guard wantsInfo else { return }
        if tree.infoCount != 0 { tree.appendInfo(", ") }
        tree.appendInfo("Handle: ")
        tree.appendInfoHex(UInt64(handle), digits: 4, upperCase: false)
        if let label = db?.label(handle) {
            tree.appendInfo(" (")
            tree.appendInfo(label)
            tree.appendInfo(")")
        }
    }

    /// Appends "Handles: 0x0001..0xffff" to the summary, after a comma when it is not empty.
    mutating func appendRangeInfo(_ start: UInt16, _ end: UInt16) {
        guard wantsInfo else { return }
        if tree.infoCount != 0 { tree.appendInfo(", ") }
        tree.appendInfo("Handles: ")
        tree.appendInfoHex(UInt64(start), digits: 4, upperCase: false)
        tree.appendInfo("..")
        tree.appendInfoHex(UInt64(end), digits: 4, upperCase: false)
    }
}

/// Pieces of one-line summaries.
enum ATTInfo {
    static func prefix(_ direction: Direction) -> String {
        switch direction {
        case .hostToController: "Sent "
        case .controllerToHost: "Rcvd "
        case .unknown: ""
        }
    }

    /// "Handle: 0x0010 (Battery Level)".
    static func handle(_ handle: UInt16, _ db: GATTDatabase?) -> String {
        let text = "Handle: " + ATTNames.hex16(handle)
        guard let label = db?.label(handle) else { return text }
        return text + " (" + label + ")"
    }

    /// "Handles: 0x0001..0xffff".
    static func range(_ start: UInt16, _ end: UInt16) -> String {
        "Handles: " + ATTNames.hex16(start) + ".." + ATTNames.hex16(end)
    }

    static func responseTo(_ request: PendingRequest?) -> String? {
        guard let request else { return nil }
        return "response to #\(request.frame)"
    }
}
