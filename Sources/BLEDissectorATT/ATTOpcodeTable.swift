import BLEInspectCore

/// The ATT opcodes (Core Specification Vol 3 Part F 3.4): one row per opcode, with its name,
/// length rule (the parameters after the opcode byte), sender, the request it answers, and its
/// decoder. ATT runs on LE and BR/EDR alike.
enum ATTOpcodes {
    /// An opcode's decoder: one of `ATTParameters`'s methods, named by `ATTDecoder`.
    typealias Decode = ATTDecoder
    typealias Row = OpcodeRow<Decode>

    // swift-format-ignore
    static let table = OpcodeTable<Decode>(
        StandardTables.attOpcode,
        [
            // Error Response answers whichever request its body names.
            Row(0x01, "Error Response", .exact(4), sender: .server, .errorResponse),
            Row(0x02, "Exchange MTU Request", .exact(2), sender: .client, .exchangeMTURequest),
            Row(0x03, "Exchange MTU Response", .exact(2), sender: .server, answers: 0x02, .exchangeMTUResponse),
            Row(0x04, "Find Information Request", .exact(4), sender: .client, .rangeRequest),
            Row(0x05, "Find Information Response", .atLeast(1), sender: .server, answers: 0x04, .findInformationResponse),
            Row(0x06, "Find By Type Value Request", .atLeast(6), sender: .client, .rangeRequest),
            Row(0x07, "Find By Type Value Response", .atLeast(0), sender: .server, answers: 0x06, .findByTypeValueResponse),
            Row(0x08, "Read By Type Request", .atLeast(6), sender: .client, .rangeRequest),
            Row(0x09, "Read By Type Response", .atLeast(1), sender: .server, answers: 0x08, .readByTypeResponse),
            Row(0x0A, "Read Request", .exact(2), sender: .client, .readRequest),
            Row(0x0B, "Read Response", .atLeast(0), sender: .server, answers: 0x0A, .readResponse),
            Row(0x0C, "Read Blob Request", .exact(4), sender: .client, .readRequest),
            Row(0x0D, "Read Blob Response", .atLeast(0), sender: .server, answers: 0x0C, .readResponse),
            Row(0x0E, "Read Multiple Request", .atLeast(0), sender: .client, .readMultipleRequest),
            Row(0x0F, "Read Multiple Response", .atLeast(0), sender: .server, answers: 0x0E, .readMultipleResponse),
            Row(0x10, "Read By Group Type Request", .atLeast(6), sender: .client, .rangeRequest),
            Row(0x11, "Read By Group Type Response", .atLeast(1), sender: .server, answers: 0x10, .readByGroupTypeResponse),
            Row(0x12, "Write Request", .atLeast(2), sender: .client, .write),
            Row(0x13, "Write Response", .exact(0), sender: .server, answers: 0x12, .emptyResponse),
            Row(0x16, "Prepare Write Request", .atLeast(4), sender: .client, .prepareWrite),
            Row(0x17, "Prepare Write Response", .atLeast(4), sender: .server, answers: 0x16, .prepareWrite),
            Row(0x18, "Execute Write Request", .exact(1), sender: .client, .executeWriteRequest),
            Row(0x19, "Execute Write Response", .exact(0), sender: .server, answers: 0x18, .emptyResponse),
            Row(0x1B, "Handle Value Notification", .atLeast(2), sender: .server, .handleValue),
            Row(0x1D, "Handle Value Indication", .atLeast(2), sender: .server, .handleValue),
            Row(0x1E, "Handle Value Confirmation", .exact(0), sender: .client, answers: 0x1D, .emptyResponse),
            Row(0x20, "Read Multiple Variable Request", .atLeast(0), sender: .client, .readMultipleRequest),
            Row(0x21, "Read Multiple Variable Response", .atLeast(0), sender: .server, answers: 0x20, .readMultipleVariableResponse),
            Row(0x23, "Multiple Handle Value Notification", .atLeast(0), sender: .server, .multipleHandleValueNotification),
            Row(0x52, "Write Command", .atLeast(2), sender: .client, .write),
            // Handle, value, then the 4-byte sign counter and the 8-byte signature.
            Row(0xD2, "Signed Write Command", .atLeast(14), sender: .client, .write),
        ]
    )

    /// A dissector for each row, to bind in `StandardTables.attOpcode`, given the handoff into
    /// `StandardTables.gattUUID` that decodes attribute values.
    static func dissectors(
        _ f: Fields<ATTField>
    ) -> [(opcode: UInt16, name: String, dissector: (Handoff<BluetoothUUID>) -> ATTOpcodeDissector)] {
        zip(table.facts.all, table.decoders).map { info, decode in
            let dissector = { (values: Handoff<BluetoothUUID>) in
                ATTOpcodeDissector(
                    f: f,
                    opcode: UInt8(truncatingIfNeeded: info.opcode),
                    name: info.name,
                    length: info.length,
                    answers: info.answers.map { UInt8(truncatingIfNeeded: $0) },
                    decode: decode,
                    values: values
                )
            }
            return (info.opcode, info.name, dissector)
        }
    }
}

/// The decoders of ATT opcodes, for `ATTOpcodes.table`'s rows (several opcodes share one).
enum ATTDecoder: UInt8, Sendable {
    case errorResponse, exchangeMTURequest, exchangeMTUResponse, rangeRequest, findInformationResponse
    case findByTypeValueResponse, readByTypeResponse, readByGroupTypeResponse, readRequest, readResponse
    case readMultipleRequest, readMultipleResponse, readMultipleVariableResponse, write, emptyResponse
    case prepareWrite, executeWriteRequest, handleValue, multipleHandleValueNotification
}

extension ATTParameters {
    /// Runs the row's decoder on the parameters.
    mutating func run(_ context: inout DissectionContext) throws(DecodeError) {
        switch row.decode {
        case .errorResponse: try errorResponse(&context)
        case .exchangeMTURequest: try exchangeMTURequest(&context)
        case .exchangeMTUResponse: try exchangeMTUResponse(&context)
        case .rangeRequest: try rangeRequest(&context)
        case .findInformationResponse: try findInformationResponse(&context)
        case .findByTypeValueResponse: try findByTypeValueResponse(&context)
        case .readByTypeResponse: try readByTypeResponse(&context)
        case .readByGroupTypeResponse: try readByGroupTypeResponse(&context)
        case .readRequest: try readRequest(&context)
        case .readResponse: try readResponse(&context)
        case .readMultipleRequest: try readMultipleRequest(&context)
        case .readMultipleResponse: try readMultipleResponse(&context)
        case .readMultipleVariableResponse: try readMultipleVariableResponse(&context)
        case .write: try write(&context)
        case .emptyResponse: try emptyResponse(&context)
        case .prepareWrite: try prepareWrite(&context)
        case .executeWriteRequest: try executeWriteRequest(&context)
        case .handleValue: try handleValue(&context)
        case .multipleHandleValueNotification: try multipleHandleValueNotification(&context)
        }
    }
}
