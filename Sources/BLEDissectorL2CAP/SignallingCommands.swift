public import BLEInspectCore

/// The L2CAP signalling commands (Core Specification Vol 3 Part A 4): one row per command code,
/// with its name, length rule (the command data after the 4-byte header), sender, the request it
/// answers, the signalling channels that carry it (LE CID 0x0005, BR/EDR CID 0x0001), and its
/// decoder. Declared to the registry (`L2CAPModule`), so that views ask
/// `DissectorRegistry.opcodeFacts(SignallingCommands.tableID)`.
public enum SignallingCommands {
    /// The table the facts are declared for: the command code, as Wireshark's `btl2cap.cmd_code`.
    /// No dissector is bound in it; the signalling dissectors decode each command themselves.
    public static let tableID = TableID("btl2cap.cmd_code")

    typealias Row = OpcodeRow<SignallingDecoder>

    static let table = OpcodeTable<SignallingDecoder>(
        tableID,
        [
            // Command Reject answers whichever request it rejects.
            Row(0x01, "Command Reject", .atLeast(2), sender: .either, .commandReject),
            Row(0x02, "Connection Request", .exact(4), sender: .either, transport: .brEDR, .connectionRequest),
            Row(
                0x03,
                "Connection Response",
                .exact(8),
                sender: .either,
                transport: .brEDR,
                answers: 0x02,
                .connectionResponse
            ),
            // The DCID and flags, then options.
            Row(0x04, "Configuration Request", .atLeast(4), sender: .either, transport: .brEDR, .configureRequest),
            Row(
                0x05,
                "Configuration Response",
                .atLeast(6),
                sender: .either,
                transport: .brEDR,
                answers: 0x04,
                .configureResponse
            ),
            Row(0x06, "Disconnection Request", .exact(4), sender: .either, .disconnectionRequest),
            Row(0x07, "Disconnection Response", .exact(4), sender: .either, answers: 0x06, .disconnectionResponse),
            Row(0x08, "Echo Request", .atLeast(0), sender: .either, transport: .brEDR, .data),
            Row(0x09, "Echo Response", .atLeast(0), sender: .either, transport: .brEDR, answers: 0x08, .data),
            Row(0x0A, "Information Request", .exact(2), sender: .either, transport: .brEDR, .informationRequest),
            // The type and result, then the data of a successful one.
            Row(
                0x0B,
                "Information Response",
                .atLeast(4),
                sender: .either,
                transport: .brEDR,
                answers: 0x0A,
                .informationResponse
            ),
            // AMP (withdrawn in Core 5.3): not decoded, their data is shown as it is.
            Row(0x0C, "Create Channel Request", .atLeast(0), sender: .either, transport: .brEDR, .undecoded),
            Row(
                0x0D,
                "Create Channel Response",
                .atLeast(0),
                sender: .either,
                transport: .brEDR,
                answers: 0x0C,
                .undecoded
            ),
            Row(0x0E, "Move Channel Request", .atLeast(0), sender: .either, transport: .brEDR, .undecoded),
            Row(
                0x0F,
                "Move Channel Response",
                .atLeast(0),
                sender: .either,
                transport: .brEDR,
                answers: 0x0E,
                .undecoded
            ),
            Row(
                0x10,
                "Move Channel Confirmation Request",
                .atLeast(0),
                sender: .either,
                transport: .brEDR,
                .undecoded
            ),
            Row(
                0x11,
                "Move Channel Confirmation Response",
                .atLeast(0),
                sender: .either,
                transport: .brEDR,
                answers: 0x10,
                .undecoded
            ),
            Row(
                0x12,
                "Connection Parameter Update Request",
                .exact(8),
                sender: .peripheral,
                transport: .le,
                .parameterUpdateRequest
            ),
            Row(
                0x13,
                "Connection Parameter Update Response",
                .exact(2),
                sender: .central,
                transport: .le,
                answers: 0x12,
                .parameterUpdateResponse
            ),
            Row(
                0x14,
                "LE Credit Based Connection Request",
                .exact(10),
                sender: .either,
                transport: .le,
                .leCreditRequest
            ),
            Row(
                0x15,
                "LE Credit Based Connection Response",
                .exact(10),
                sender: .either,
                transport: .le,
                answers: 0x14,
                .leCreditResponse
            ),
            Row(0x16, "LE Flow Control Credit", .exact(4), sender: .either, transport: .le, .flowControlCredit),
            // The fixed part, then 1 to 5 CIDs (a count outside that is a warning, not truncation).
            Row(0x17, "Enhanced Credit Based Connection Request", .atLeast(8), sender: .either, .enhancedRequest),
            Row(
                0x18,
                "Enhanced Credit Based Connection Response",
                .atLeast(8),
                sender: .either,
                answers: 0x17,
                .enhancedResponse
            ),
            Row(0x19, "Credit Based Reconfigure Request", .atLeast(4), sender: .either, .reconfigureRequest),
            Row(
                0x1A,
                "Credit Based Reconfigure Response",
                .exact(2),
                sender: .either,
                answers: 0x19,
                .reconfigureResponse
            ),
        ]
    )
}

/// The decoders of signalling commands, for `SignallingCommands.table`'s rows.
enum SignallingDecoder: UInt8, Sendable {
    case commandReject, connectionRequest, connectionResponse, configureRequest, configureResponse
    case disconnectionRequest, disconnectionResponse, informationRequest, informationResponse
    case parameterUpdateRequest, parameterUpdateResponse, leCreditRequest, leCreditResponse, flowControlCredit
    case enhancedRequest, enhancedResponse, reconfigureRequest, reconfigureResponse
    /// Echo data, shown as `btl2cap.data`.
    case data
    /// Not decoded: shown as command data.
    case undecoded
}

/// A command's data decoder for `DissectionContext.decode(_:length:leavingRest:)`: the row's
/// decoder, with the command's identifier.
struct SignallingParameters: ParameterDecoder {
    let signalling: SignallingDissector
    let ident: UInt8
    let decode: SignallingDecoder

    func decode(_ r: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let s = signalling
        let f = s.f
        switch decode {
        case .commandReject: try s.commandReject(&r, &context)
        case .connectionRequest: try s.connectionRequest(ident, &r, &context)
        case .connectionResponse: try s.connectionResponse(ident, &r, &context)
        case .configureRequest: try s.configureRequest(&r, &context)
        case .configureResponse: try s.configureResponse(&r, &context)
        case .disconnectionRequest: try s.disconnection(request: true, &r, &context)
        case .disconnectionResponse: try s.disconnection(request: false, &r, &context)
        case .data: context.addRest(f[.data], &r)
        case .informationRequest:
            let type = try context.addUInt16(f[.infoType], &r)
            context.appendInfoDetail(L2CAPNames.infoType.lookup(UInt64(type)) ?? Format.hex16(type))
        case .informationResponse: try s.informationResponse(&r, &context)
        case .parameterUpdateRequest:
            let lo = try context.addUInt16(f[.minInterval], &r)
            let hi = try context.addUInt16(f[.maxInterval], &r)
            let latency = try context.addUInt16(f[.slaveLatency], &r)
            let timeout = try context.addUInt16(f[.timeoutMultiplier], &r)
            context.appendInfoDetail("interval \(lo)-\(hi), latency \(latency), timeout \(timeout)")
        case .parameterUpdateResponse:
            let result = try context.addUInt16(f[.moveResult], &r)
            context.appendInfoDetail(L2CAPNames.name(L2CAPNames.parameterUpdateResult, result))
        case .leCreditRequest: try s.leCreditRequest(ident, &r, &context)
        case .leCreditResponse: try s.leCreditResponse(ident, &r, &context)
        case .flowControlCredit: try s.flowControlCredit(&r, &context)
        case .enhancedRequest: try s.enhancedRequest(ident, &r, &context)
        case .enhancedResponse: try s.enhancedResponse(ident, &r, &context)
        case .reconfigureRequest: try s.reconfigureRequest(ident, &r, &context)
        case .reconfigureResponse: try s.reconfigureResponse(ident, &r, &context)
        case .undecoded: context.addRest(f[.cmdData], &r)
        }
    }
}
