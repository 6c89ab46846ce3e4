public import BLEInspectCore

/// The fields of the L2CAP layer. Abbreviations are Wireshark's (`tshark -G fields`, btl2cap.*),
/// so that filters written for Wireshark carry over.
public enum L2CAPField: UInt16, FieldSet {
    case length, cid, payload
    case command, cmdCode, cmdIdent, cmdLength, cmdData
    case psm, lePSM, scid, dcid
    case result, status, rejReason, sigMTU
    case infoType, infoResult, infoMTU, infoExtFeatures
    case infoFlowControl, infoRetransmission, infoBidirQoS, infoEnhRetransmission, infoStreaming
    case infoFCS, infoFlowSpec, infoFixedChan, infoWindow, infoUnicast
    case infoFixedChans, infoFixedChansNull, infoFixedChansSignal, infoFixedChansConnless
    case infoFixedChansAMPMan, infoFixedChansAMPTest
    case flagsReserved, flagsContinuation, confResult, confParamOption
    case optionType, optionLength, optionMTU, optionFlushTimeout
    case retransmissionMode, txWindow, maxTransmit, retransmitTimeout, monitorTimeout, mps
    case optionFCS, optionWindow
    case minInterval, maxInterval, slaveLatency, timeoutMultiplier, moveResult
    case leResult, credits, initialCredits, leSDULength, data, connectIn

    public static let layer = FieldDescriptor(
        "btl2cap",
        "Bluetooth L2CAP Protocol",
        .layer,
        help: "Logical Link Control and Adaptation Protocol",
        short: "L2CAP"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .length: .uint("btl2cap.length", "Length", 16, help: "L2CAP payload length")
        case .cid: .uint("btl2cap.cid", "CID", 16, hex: true, names: L2CAPNames.cid, help: "Channel identifier. In an LE Flow Control Credit packet: the CID of the endpoint that sends the credits")
        case .payload: FieldDescriptor("btl2cap.payload", "Payload", .bytes, help: "L2CAP payload not decoded further")
        case .command: FieldDescriptor("btl2cap.command", "Command", .group, help: "One signalling command")
        case .cmdCode: .uint("btl2cap.cmd_code", "Command Code", 8, hex: true, names: L2CAPNames.command)
        case .cmdIdent: .uint("btl2cap.cmd_ident", "Command Identifier", 8, hex: true, help: "Matches a response to its request")
        case .cmdLength: .uint("btl2cap.cmd_length", "Command Length", 16)
        case .cmdData: FieldDescriptor("btl2cap.cmd_data", "Command Data", .bytes, help: "Data of a command not decoded")
        case .psm: .uint("btl2cap.psm", "PSM", 16, hex: true, names: L2CAPNames.psm, help: "Protocol/Service Multiplexer. On data of a known channel: the channel's PSM (learned from signalling)")
        case .lePSM: .uint("btl2cap.le_psm", "LE PSM", 16, hex: true, names: L2CAPNames.lePSM, help: "Simplified PSM of an LE or enhanced credit-based connection request")
        case .scid: .uint("btl2cap.scid", "Source CID", 16, hex: true, names: L2CAPNames.cid, help: "The sender's channel endpoint: the CID on which the sender receives")
        case .dcid: .uint("btl2cap.dcid", "Destination CID", 16, hex: true, names: L2CAPNames.cid, help: "The receiver's channel endpoint. In a Credit Based Reconfigure Request: the CIDs being reconfigured")
        case .result: .uint("btl2cap.result", "Result", 16, hex: true, names: L2CAPNames.connectionResult, help: "Result of a BR/EDR Connection Response")
        case .status: .uint("btl2cap.status", "Status", 16, hex: true, names: L2CAPNames.connectionStatus)
        case .rejReason: .uint("btl2cap.rej_reason", "Reason", 16, hex: true, names: L2CAPNames.rejectReason)
        case .sigMTU: .uint("btl2cap.sig_mtu", "Maximum Signalling MTU", 16)
        case .infoType: .uint("btl2cap.info_type", "Information Type", 16, hex: true, names: L2CAPNames.infoType)
        case .infoResult: .uint("btl2cap.info_result", "Result", 16, hex: true, names: L2CAPNames.infoResult)
        case .infoMTU: .uint("btl2cap.info_mtu", "Remote Entity MTU", 16, help: "Connectionless MTU")
        case .infoExtFeatures: .uint("btl2cap.info_extfeatures", "Extended Features", 32, hex: true, help: "Extended features mask (Wireshark shows it as a label; here it holds the mask)")
        case .infoFlowControl: .flag("btl2cap.info_flowcontrol", "Flow Control Mode", 0x1)
        case .infoRetransmission: .flag("btl2cap.info_retransmission", "Retransmission Mode", 0x2)
        case .infoBidirQoS: .flag("btl2cap.info_bidirqos", "Bi-Directional QoS", 0x4)
        case .infoEnhRetransmission: .flag("btl2cap.info_enh_retransmission", "Enhanced Retransmission Mode", 0x8)
        case .infoStreaming: .flag("btl2cap.info_streaming", "Streaming Mode", 0x10)
        case .infoFCS: .flag("btl2cap.info_fcs", "FCS Option", 0x20)
        case .infoFlowSpec: .flag("btl2cap.info_flow_spec", "Extended Flow Specification for BR/EDR", 0x40)
        case .infoFixedChan: .flag("btl2cap.info_fixedchan", "Fixed Channels", 0x80)
        case .infoWindow: .flag("btl2cap.info_window", "Extended Window Size", 0x100)
        case .infoUnicast: .flag("btl2cap.info_unicast", "Unicast Connectionless Data Reception", 0x200)
        case .infoFixedChans: .uint("btl2cap.info_fixedchans", "Fixed Channels Supported", 64, hex: true, help: "Bit n set: fixed channel CID n is supported (bit 4 ATT, 5 LE signalling, 6 SMP, 7 BR/EDR SM)")
        case .infoFixedChansNull: .flag("btl2cap.info_fixedchans_null", "Null identifier", 0x1)
        case .infoFixedChansSignal: .flag("btl2cap.info_fixedchans_signal", "L2CAP signalling channel", 0x2)
        case .infoFixedChansConnless: .flag("btl2cap.info_fixedchans_connless", "Connectionless reception", 0x4)
        case .infoFixedChansAMPMan: .flag("btl2cap.info_fixedchans_amp_man", "AMP Manager protocol", 0x8)
        case .infoFixedChansAMPTest: .flag("btl2cap.info_fixedchans_amp_test", "AMP Test Manager", 0x8000_0000_0000_0000)
        case .flagsReserved: .uint("btl2cap.flags.reserved", "Reserved", 16, hex: true, mask: 0xFFFE)
        case .flagsContinuation: .flag("btl2cap.flags.continuation", "Continuation Flag", 0x1)
        case .confResult: .uint("btl2cap.conf_result", "Result", 16, hex: true, names: L2CAPNames.configResult)
        case .confParamOption: FieldDescriptor("btl2cap.conf_param_option", "Configuration Parameter Option", .group)
        case .optionType: .uint("btl2cap.option_type", "Type", 8, hex: true, names: L2CAPNames.optionType, help: "Option type; bit 7 set marks a hint")
        case .optionLength: .uint("btl2cap.option_length", "Length", 8)
        case .optionMTU: .uint("btl2cap.option_mtu", "MTU", 16, help: "Maximum transmission unit: the largest SDU the sender of this field can receive")
        case .optionFlushTimeout: .uint("btl2cap.option_flushto", "Flush Timeout (ms)", 16)
        case .retransmissionMode: .uint("btl2cap.retransmissionmode", "Mode", 8, hex: true, names: L2CAPNames.mode)
        case .txWindow: .uint("btl2cap.txwindow", "TxWindow", 8)
        case .maxTransmit: .uint("btl2cap.maxtransmit", "MaxTransmit", 8)
        case .retransmitTimeout: .uint("btl2cap.retransmittimeout", "Retransmit timeout (ms)", 16)
        case .monitorTimeout: .uint("btl2cap.monitortimeout", "Monitor Timeout (ms)", 16)
        case .mps: .uint("btl2cap.mps", "MPS", 16, help: "Maximum PDU payload size the sender of this field can receive (for K-frames: including the SDU length)")
        case .optionFCS: .uint("btl2cap.option_fcs", "FCS", 8, hex: true, names: L2CAPNames.fcsType)
        case .optionWindow: .uint("btl2cap.option_window", "Extended Window Size", 16)
        case .minInterval: .uint("btl2cap.min_interval", "Min. Interval", 16, help: "Units of 1.25 ms")
        case .maxInterval: .uint("btl2cap.max_interval", "Max. Interval", 16, help: "Units of 1.25 ms")
        case .slaveLatency: .uint("btl2cap.slave_latency", "Peripheral Latency", 16, help: "Connection events")
        case .timeoutMultiplier: .uint("btl2cap.timeout_multiplier", "Timeout Multiplier", 16, help: "Supervision timeout in units of 10 ms")
        case .moveResult: .uint("btl2cap.move_result", "Result", 16, hex: true, names: L2CAPNames.parameterUpdateResult, help: "Result of a Connection Parameter Update Response (Wireshark files it under this name)")
        case .leResult: .uint("btl2cap.le_result", "LE Result", 16, hex: true, names: L2CAPNames.leResult, help: "Result of an LE Credit Based Connection Response")
        case .credits: .uint("btl2cap.credits", "Credits", 16, help: "Credits granted: K-frames the receiver of this packet may send more")
        case .initialCredits: .uint("btl2cap.initial_credits", "Initial Credits", 16, help: "K-frames the receiver of this packet may send before it needs more credits")
        case .leSDULength: .uint("btl2cap.le_sdu_length", "SDU Length", 16, help: "Length of the SDU, carried by its first K-frame")
        case .data: FieldDescriptor("btl2cap.data", "Data", .bytes)
        case .connectIn: .uint("btl2cap.connect_in", "Connect in frame", 32, help: "Frame of the request that opened this channel")
        }
    }
}

/// Fields of LE credit-based channels (LE CoC and enhanced credit-based channels) that Wireshark
/// does not have: channel identity, running credit balances and reassembled SDUs.
public enum CoCField: UInt16, FieldSet {
    case channel, sender, mode, localCID, peerCID, mtu, mps, txCredits, rxCredits
    case sduIndex, segment, sduPending, sdu, sduLen, sduSegments, sduStart
    case ecfcResult, reconfResult, initiator, dualRoleWith, psmPublishedIn, psmPublishedVia

    public static let layer = FieldDescriptor(
        "coc",
        "L2CAP Credit Based Channel",
        .layer,
        help: "State of an LE credit-based or enhanced credit-based channel, learned from signalling",
        short: "L2CAP"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .channel: .uint("coc.channel", "Channel", 32, help: "Number of the credit-based channel within the capture: 1 for the first one opened, 2 for the next…")
        case .sender: .uint("coc.sender", "Sender", 8, names: L2CAPNames.side, help: "Who sent this K-frame or credit packet: the local host (host to controller) or the peer")
        case .mode: .uint("coc.mode", "Mode", 8, names: L2CAPNames.channelMode, help: "How the channel was opened: 1 LE credit based (signalling code 0x14), 2 enhanced credit based (0x17), 3 BR/EDR connection-oriented (0x02)")
        case .localCID: .uint("coc.local_cid", "Local CID", 16, hex: true, help: "The capturing host's endpoint: K-frames it receives carry this CID")
        case .peerCID: .uint("coc.peer_cid", "Peer CID", 16, hex: true, help: "The peer's endpoint: K-frames the capturing host sends carry this CID")
        case .mtu: .uint("coc.mtu", "Receiver MTU", 16, help: "Largest SDU the receiver of this K-frame accepts (from its connection request or response)")
        case .mps: .uint("coc.mps", "Receiver MPS", 16, help: "Largest K-frame payload the receiver of this K-frame accepts, SDU length included")
        case .txCredits: .uint("coc.tx_credits", "Local Host Credits", 32, help: "Running balance after this frame: K-frames the local (capturing) host may still send to the peer. Each K-frame it sends costs one; LE Flow Control Credit packets from the peer add to it. 0 means the local host must wait (the channel stalls in that direction)")
        case .rxCredits: .uint("coc.rx_credits", "Peer Credits", 32, help: "Running balance after this frame: K-frames the peer may still send to the local host. Each K-frame the peer sends costs one; LE Flow Control Credit packets from the local host add to it")
        case .sduIndex: .uint("coc.sdu_index", "SDU Number", 32, help: "Number of the SDU this K-frame belongs to, counted per channel and direction from 1")
        case .segment: .uint("coc.segment", "Segment", 32, help: "Index of this K-frame within its SDU, from 1 (the K-frame with the SDU length)")
        case .sduPending: .uint("coc.sdu_pending", "SDU Bytes Missing", 32, help: "Bytes of the SDU still to come after this K-frame")
        case .sdu: FieldDescriptor("coc.sdu", "Reassembled SDU", .bytes, help: "The complete SDU, reassembled from its K-frames (a data source of its own), on the K-frame that completes it")
        case .sduLen: .uint("coc.sdu_len", "Reassembled SDU Length", 32, help: "Length of the SDU completed by this K-frame (alias: btl2cap.le_sdu.reassembled.length)")
        case .sduSegments: .uint("coc.sdu_segments", "SDU K-frames", 32, help: "Number of K-frames the completed SDU took (alias: btl2cap.le_sdu.fragment.count)")
        case .sduStart: .uint("coc.sdu_start", "SDU Started in Frame", 32, help: "Frame of the SDU's first K-frame")
        case .ecfcResult: .uint("coc.ecfc_result", "Result", 16, hex: true, names: L2CAPNames.ecfcResult, help: "Result of an Enhanced Credit Based Connection Response (0x18); Wireshark 4.0 has no field for it")
        case .reconfResult: .uint("coc.reconf_result", "Result", 16, hex: true, names: L2CAPNames.reconfigureResult, help: "Result of a Credit Based Reconfigure Response (0x1A); Wireshark 4.0 has no field for it")
        case .initiator: .uint("coc.initiator", "Opened By", 8, names: L2CAPNames.side, help: "Who sent the connection request (its SCID is the requester's own receiving CID)")
        case .psmPublishedIn: .uint("coc.psm_published_in", "PSM Published in Frame", 32, help: "On a credit-based connection request and the response that opens the channel: the frame where the other side published this PSM (the L2CAP PSM characteristic read, notified or indicated, or a plugin's PSM field)")
        case .psmPublishedVia: .uint("coc.psm_published_via", "PSM Published By", 8, names: L2CAPNames.publishedVia, help: "How that frame published the PSM: 1 read, 2 notified, 3 indicated, 4 advertised")
        case .dualRoleWith: .uint("coc.dual_role_with", "Dual-Role Counterpart", 32, help: "On the response that opens a channel: the other channel of a dual-role pair. The two were opened by opposite sides within 10 s, on this link or another, each on the PSM the side that did not open it published: one app acting as central and as peripheral at once")
        }
    }
}
