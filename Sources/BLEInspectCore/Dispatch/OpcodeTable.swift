/// Opcode tables: one row per opcode, holding in one place what a protocol knows of it (its name,
/// length rule, sender, transport, the opcode it answers) and its decoder, declared as one literal
/// per protocol, as btmon's opcode tables are.
///
/// The decoders stay with their protocol (`OpcodeTable`); the facts (`OpcodeFacts`) are kept by
/// the registry (`RegistryBuilder.declareOpcodes(_:)`), so that views ask
/// `DissectorRegistry.opcodeFacts(_:)` instead of keeping opcode lists of their own.

/// How many parameter bytes (after the opcode, or the command header) an opcode's PDU carries.
public enum OpcodeLength: Sendable, Hashable {
    /// Exactly this many: fewer is truncated, more is malformed.
    case exact(Int)
    /// At least this many: fewer is truncated.
    case atLeast(Int)

    /// The fewest bytes the PDU may carry.
    @inlinable
    public var minimum: Int {
        switch self {
        case .exact(let n), .atLeast(let n): n
        }
    }

    /// The most bytes the PDU may carry, if it is bounded.
    @inlinable
    public var maximum: Int? {
        switch self {
        case .exact(let n): n
        case .atLeast: nil
        }
    }
}

/// Who may send an opcode.
public enum OpcodeSender: UInt8, Sendable, Hashable {
    /// The ATT client.
    case client
    /// The ATT server.
    case server
    /// The device that starts the procedure (SMP's initiator).
    case initiator
    /// The device that answers it (SMP's responder).
    case responder
    /// The LE central.
    case central
    /// The LE peripheral.
    case peripheral
    /// Either side.
    case either
}

/// The transports on which an opcode is allowed.
public enum OpcodeTransport: UInt8, Sendable, Hashable {
    /// LE links only.
    case le
    /// BR/EDR links only.
    case brEDR
    /// Both.
    case both

    /// Whether the opcode is allowed on an LE link (`le` true) or a BR/EDR one.
    @inlinable
    public func allows(le: Bool) -> Bool { self == .both || (self == .le) == le }
}

/// What a protocol knows of one opcode, without its decoder.
public struct OpcodeInfo: Sendable, Hashable {
    public let opcode: UInt16
    public let name: String
    public let length: OpcodeLength
    public let sender: OpcodeSender
    public let transport: OpcodeTransport
    /// The opcode this one answers (a response's request), if it answers exactly one.
    public let answers: UInt16?
    /// The opcode that answers this one (a request's response), from the row that names this one
    /// in `answers`; nil when none does.
    public internal(set) var answeredBy: UInt16?

    public init(
        _ opcode: UInt16,
        _ name: String,
        _ length: OpcodeLength,
        sender: OpcodeSender,
        transport: OpcodeTransport = .both,
        answers: UInt16? = nil
    ) {
        self.opcode = opcode
        self.name = name
        self.length = length
        self.sender = sender
        self.transport = transport
        self.answers = answers
    }
}

/// The facts of one protocol's opcodes, looked up by opcode through a dense array.
public struct OpcodeFacts: Sendable {
    /// The dissector table the opcodes are bound in (`StandardTables.attOpcode`, say).
    public let table: TableID
    /// Every row, in declaration order.
    public let all: [OpcodeInfo]
    /// `index[opcode]` is 1 + the row's position in `all`, or 0.
    private let index: [UInt16]

    /// Facts from `rows`; `answeredBy` is filled from the rows' `answers`. Opcodes must be below
    /// 0x1000 and appear once (checked by `RegistryBuilder.declareOpcodes(_:)`).
    public init(_ table: TableID, _ rows: [OpcodeInfo]) {
        self.table = table
        var all = rows
        let size = Int(min(0x1000, (rows.map(\.opcode).max() ?? 0) + 1))
        var index = [UInt16](repeating: 0, count: size)
        for (i, row) in rows.enumerated() where Int(row.opcode) < size && index[Int(row.opcode)] == 0 {
            index[Int(row.opcode)] = UInt16(i + 1)
        }
        for row in rows {
            if let asked = row.answers, Int(asked) < size, index[Int(asked)] != 0 {
                all[Int(index[Int(asked)]) - 1].answeredBy = row.opcode
            }
        }
        self.all = all
        self.index = index
    }

    /// The position of `opcode`'s row in `all`, if it has one.
    @inlinable
    public func position(of opcode: UInt16) -> Int? {
        Int(opcode) < indexCount ? indexAt(Int(opcode)) : nil
    }

    @usableFromInline var indexCount: Int { index.count }
    @usableFromInline func indexAt(_ i: Int) -> Int? { index[i] == 0 ? nil : Int(index[i]) - 1 }

    /// The row of `opcode`, if it has one.
    public subscript(_ opcode: UInt16) -> OpcodeInfo? { position(of: opcode).map { all[$0] } }

    /// Problems with the rows: opcodes out of range or given twice, answers naming no row.
    func problems() -> [String] {
        var problems: [String] = []
        var seen = Set<UInt16>()
        for row in all {
            if row.opcode >= 0x1000 { problems.append("opcode \(row.opcode) of \(table) is above 0xFFF") }
            if !seen.insert(row.opcode).inserted { problems.append("opcode \(row.opcode) of \(table) given twice") }
            if let asked = row.answers, self[asked] == nil {
                problems.append("\(row.name) in \(table) answers opcode \(asked), which has no row")
            }
        }
        return problems
    }
}

/// One opcode's row: its facts and its decoder (a protocol's own function type, so that calling
/// it needs no existential).
public struct OpcodeRow<Decode: Sendable>: Sendable {
    public let info: OpcodeInfo
    public let decode: Decode

    public init(
        _ opcode: UInt16,
        _ name: String,
        _ length: OpcodeLength,
        sender: OpcodeSender,
        transport: OpcodeTransport = .both,
        answers: UInt16? = nil,
        _ decode: Decode
    ) {
        info = OpcodeInfo(opcode, name, length, sender: sender, transport: transport, answers: answers)
        self.decode = decode
    }
}

/// A protocol's opcode table: its rows (declared as one literal), their facts for the registry,
/// and a dense lookup by opcode.
public struct OpcodeTable<Decode: Sendable>: Sendable {
    public let facts: OpcodeFacts
    /// The decoders, in the order of `facts.all`.
    public let decoders: [Decode]

    public init(_ table: TableID, _ rows: [OpcodeRow<Decode>]) {
        facts = OpcodeFacts(table, rows.map(\.info))
        decoders = rows.map(\.decode)
    }

    public init<K>(_ table: Table<K>, _ rows: [OpcodeRow<Decode>]) { self.init(table.id, rows) }

    /// The facts and decoder of `opcode`, if it has a row.
    @inlinable
    public subscript(_ opcode: UInt16) -> (info: OpcodeInfo, decode: Decode)? {
        facts.position(of: opcode).map { (facts.all[$0], decoders[$0]) }
    }
}

/// Decodes the parameters of one PDU for `DissectionContext.decode(_:length:trailing:_:)`: a
/// value (generic, so that the call needs no existential or closure) holding what the decoder
/// needs beyond the bytes.
public protocol ParameterDecoder {
    func decode(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError)
}

extension DissectionContext {
    /// Decodes the parameters in `reader` of a PDU whose length rule is `length`: the one place
    /// where opcode tables' length rules are applied.
    ///
    /// `decoder` gets the PDU's parameters: with `.exact(n)`, at most the first `n` bytes, so that
    /// it need not check for more. A short PDU still goes to `decoder`, so that the fields it
    /// holds are shown (as tshark shows them); its first read past the end throws `.truncated`,
    /// and if none does, or the decoder rejects a value of the cut PDU, this throws it. After a successful decode, bytes past an exact length
    /// throw `.malformed`: "N unexpected bytes after the `trailing`". The caller's error boundary
    /// (`run`, which `dispatch` uses) turns either into the malformed note.
    @inlinable
    public mutating func decode(
        _ reader: inout ByteReader,
        length: OpcodeLength,
        trailing: @autoclosure () -> String,
        _ decoder: some ParameterDecoder
    ) throws(DecodeError) {
        let start = reader.offset
        let have = reader.remaining
        var parameters: ByteReader
        if let most = length.maximum, have > most {
            parameters = try reader.readSlice(most)
        } else {
            parameters = reader.readRest()
        }
        try decodeParameters(&parameters, start: start, have: have, length: length, decoder)
        if !reader.isAtEnd { try Self.unexpectedBytes(reader, trailing()) }
    }

    /// The error for bytes past an exact length, out of line so that `decode` stays small.
    @usableFromInline @inline(never)
    static func unexpectedBytes(_ reader: ByteReader, _ trailing: String) throws(DecodeError) -> Never {
        let extra = reader.remaining
        throw DecodeError(
            .malformed,
            offset: reader.offset,
            "\(extra) unexpected byte\(extra == 1 ? "" : "s") after the \(trailing)"
        )
    }
}

extension DissectionContext {
    /// Decodes the parameters in `reader` of a PDU whose length rule is `length`, as
    /// `decode(_:length:trailing:_:)` does, but leaves to the caller the bytes `decoder` does not
    /// read (past an exact length, or left by it): `reader` ends where `decoder` stopped. For
    /// protocols that show such bytes rather than call the PDU malformed (L2CAP signalling warns
    /// of them and shows them as command data, as Wireshark does). A short PDU is truncated.
    public mutating func decode(
        _ reader: inout ByteReader,
        length: OpcodeLength,
        leavingRest decoder: some ParameterDecoder
    ) throws(DecodeError) {
        let start = reader.offset
        let have = reader.remaining
        var parameters = reader
        if let most = length.maximum, have > most {
            var all = reader
            parameters = try all.readSlice(most)
        }
        try decodeParameters(&parameters, start: start, have: have, length: length, decoder)
        try reader.skip(parameters.offset - start)
    }

    /// Runs `decoder`; a PDU shorter than its row's minimum (`have` bytes from `start`) is then
    /// truncated, whatever the decoder made of the bytes that are there: a value it cannot accept
    /// in a cut PDU is the cut's doing.
    @inlinable
    mutating func decodeParameters(
        _ parameters: inout ByteReader,
        start: Int,
        have: Int,
        length: OpcodeLength,
        _ decoder: some ParameterDecoder
    ) throws(DecodeError) {
        do {
            try decoder.decode(&parameters, &self)
        } catch {
            guard have < length.minimum, error.code == .malformed else { throw error }
        }
        if have < length.minimum {
            let need = start + length.minimum - parameters.offset
            throw DecodeError.truncated(at: parameters.offset, need: need, have: parameters.remaining)
        }
    }
}

extension DissectorRegistry {
    /// The opcode facts a module declared for `table` (`RegistryBuilder.declareOpcodes(_:)`),
    /// such as `StandardTables.attOpcode`'s: look it up once, then index it by opcode
    /// (`facts[opcode]?.sender`), which costs no hashing.
    public func opcodeFacts(_ table: TableID) -> OpcodeFacts? { opcodeTables[table] }

    /// The opcode facts of `table`.
    public func opcodeFacts<K>(_ table: Table<K>) -> OpcodeFacts? { opcodeTables[table.id] }

    /// The facts of `opcode` in `table`, if that table has opcode facts and a row for it.
    public func opcode(_ opcode: UInt16, in table: TableID) -> OpcodeInfo? { opcodeTables[table]?[opcode] }

    /// The facts of `opcode` in `table`.
    public func opcode<K>(_ opcode: UInt16, in table: Table<K>) -> OpcodeInfo? { self.opcode(opcode, in: table.id) }
}
