import BLEInspectCore

/// Builds `conns`' connection records from the fields of dissected frames, as `-T json` shows
/// them: HCI events for the connection's life, parameters, PHY, data length and encryption;
/// ATT, SMP and the `coc` fields of the L2CAP dissector for what went over it.
///
/// A connection is handed to `finished` when it ends (its Disconnection Complete, or a new
/// connection complete with its handle); the rest at the end of the capture. Only the open
/// connections are kept, so memory stays flat however long the capture.
final class ConnsBuilder {
    enum Field: String, CaseIterable {
        case eventCode = "bthci_evt.code", subevent = "bthci_evt.le_meta_subevent", status = "bthci_evt.status"
        case eventHandle = "bthci_evt.connection_handle", role = "bthci_evt.role", reason = "bthci_evt.reason"
        case peerAddress = "bthci_evt.bd_addr", peerAddressType = "bthci_evt.le_peer_address_type"
        case peerRPA = "bthci_evt.le_peer_rpa"
        case interval = "bthci_evt.le_con_interval", latency = "bthci_evt.le_con_latency"
        case timeout = "bthci_evt.le_supv_timeout", minInterval = "bthci_evt.le_min_interval"
        case maxInterval = "bthci_evt.le_max_interval"
        case txPHY = "bthci_evt.le_tx_phy", rxPHY = "bthci_evt.le_rx_phy"
        case maxTxOctets = "bthci_evt.max_tx_octets", maxTxTime = "bthci_evt.max_tx_time"
        case maxRxOctets = "bthci_evt.max_rx_octets", maxRxTime = "bthci_evt.max_rx_time"
        case encryptionEnable = "bthci_evt.encryption_enable", keySize = "bthci_evt.enc_key_size"
        case chandle = "bthci_acl.chandle"
        case l2capCommandCode = "btl2cap.cmd_code", l2capMinInterval = "btl2cap.min_interval"
        case l2capMaxInterval = "btl2cap.max_interval", l2capLatency = "btl2cap.slave_latency"
        case l2capTimeout = "btl2cap.timeout_multiplier", credits = "btl2cap.credits", psm = "btl2cap.psm"
        case att = "btatt", attOpcode = "btatt.opcode", responseTime = "gatt.response_time", mtu = "gatt.mtu"
        case smpOpcode = "btsmp.opcode", io = "btsmp.io_capability", oob = "btsmp.oob_data_flags"
        case mitm = "btsmp.mitm_flag", secureConnections = "btsmp.sc_flag", bonding = "btsmp.bonding_flags"
        case smpKeySize = "btsmp.max_enc_key_size", smpReason = "btsmp.reason"
        case coc, channel = "coc.channel", sender = "coc.sender", txCredits = "coc.tx_credits"
        case rxCredits = "coc.rx_credits", sduIndex = "coc.sdu_index", sduPending = "coc.sdu_pending"
        case sduLength = "coc.sdu_len", localCID = "coc.local_cid", peerCID = "coc.peer_cid"
        case initiator = "coc.initiator", mode = "coc.mode", linkType = "bthci_evt.link_type"
        case device, deviceAddress = "device.addr"
        case psmValue = "gatt.l2cap_psm", psmEncoding = "gatt.l2cap_psm.encoding"
        case psmPublishedIn = "coc.psm_published_in", psmPublishedVia = "coc.psm_published_via"
        case dualRoleWith = "coc.dual_role_with"
        case sequenceIssue = "sequence.issue", sequenceExpected = "sequence.expected"
        // Sniffed connections (the link layer).
        case llConnection = "ll.connection", llCRCValid = "ll.crc_valid"
        case llPDUType = "btle.advertising_header.pdu_type", llAdvA = "btle.advertising_address"
        case llInitA = "btle.initiator_address", llRxAdd = "btle.advertising_header.randomized_rx"
        case llInterval = "btle.link_layer_data.interval", llLatency = "btle.link_layer_data.latency"
        case llTimeout = "btle.link_layer_data.timeout", llControl = "btle.control_opcode"
        case llUpdateInterval = "btle.control.interval", llUpdateLatency = "btle.control.latency"
        case llUpdateTimeout = "btle.control.timeout", llError = "btle.control.error_code"
        case llPHYCentral = "btle.control.m_to_s_phy", llPHYPeripheral = "btle.control.s_to_m_phy"
        case llMaxTxOctets = "btle.control.max_tx_octets", llMaxTxTime = "btle.control.max_tx_time"
        case llMaxRxOctets = "btle.control.max_rx_octets", llMaxRxTime = "btle.control.max_rx_time"
        case llAccessAddress = "btle.access_address", llNewAccessAddress = "btle.link_layer_data.access_address"
    }

    /// At most this many connections are open at once; more are counted, not followed.
    static let maximumOpen = 4096

    private let f: FieldLookup<Field>
    private let devices: DeviceNodeFields
    private let finished: (ConnsRecord) -> Void
    /// The names of `gatt.l2cap_psm.encoding`'s values.
    private let psmEncodings: ValueNames?
    /// What links connections: peers, published PSMs, dual-role channels.
    let links = ConnsCaptureLinks()
    private var open: [UInt32: ConnsRecord] = [:]
    private var sightings = AdvertisingSightings()
    private var nextNumber = 1
    /// Connection attempts whose connection complete reported an error.
    private(set) var failedAttempts = CappedList<(moment: ConnsMoment, status: UInt8, peer: BDAddr?)>(limit: 256)
    private(set) var untracked = 0
    private(set) var lastMoment: ConnsMoment?
    /// Whether records keep the series `report` draws (`ConnsSeries`).
    var keepsSeries = false
    /// The connection the last frame belonged to, nil when it belonged to none.
    private(set) var touched: ConnsRecord?
    /// The first node of each field in the frame being read (see `FieldLookup.firstNodes`).
    private var firsts: [Int32] = []

    /// `finished` gets each connection once it ends, and the open ones at `finish()`.
    init(registry: DissectorRegistry, finished: @escaping (ConnsRecord) -> Void) {
        f = FieldLookup(registry)
        devices = DeviceNodeFields(registry)
        psmEncodings = registry.field(named: Field.psmEncoding.rawValue).flatMap { registry.descriptor($0).valueNames }
        self.finished = finished
    }

    /// The fields the view needs that the registry lacks. The `sequence.*` fields exist only when
    /// a plugin declares a counter: without them there is nothing to count.
    var missingFields: [String] { f.missing.filter { !$0.hasPrefix("sequence.") } + devices.missing }

    /// Ends the connections still open at the end of the capture, in the order they began.
    func finish() {
        let moment = lastMoment
        for record in open.values.sorted(by: { $0.number < $1.number }) {
            record.finish(.captureEnded, at: moment ?? record.last)
            links.ended(record)
            finished(record)
        }
        open = [:]
    }

    func add(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree) {
        let moment = ConnsMoment(frame)
        lastMoment = moment
        touched = nil
        TreeWalk.with(frame, tree) { walk in
            switch frame.kind {
            case .hciEvent, .aclData, .linkLayer: break
            default: return
            }
            f.firstNodes(walk.nodes, into: &firsts)
            switch frame.kind {
            case .hciEvent: event(frame, moment, walk)
            case .aclData: acl(frame, moment, walk)
            case .linkLayer: linkLayer(frame, moment, walk)
            default: break
            }
        }
    }

    private static func key(_ frame: CapturedFrame, _ handle: UInt16) -> UInt32 {
        UInt32(frame.controllerIndex ?? 0xFFFF) << 16 | UInt32(handle)
    }

    /// The value of the first node of `field` in `range`, or in the whole frame.
    private func value(_ field: Field, _ walk: TreeWalk, in range: Range<Int>? = nil) -> UInt64? {
        if let range { return walk.first(f[field], in: range).flatMap(walk.unsigned) }
        return node(field).flatMap(walk.unsigned)
    }

    /// The first node of `field` in the frame.
    private func node(_ field: Field) -> Int? { f.node(field, in: firsts) }

    private func byte(_ field: Field, _ walk: TreeWalk) -> UInt8? {
        value(field, walk).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The open connection with `handle`, made (as begun before the capture) on first sight.
    private func record(_ frame: CapturedFrame, _ handle: UInt16, _ moment: ConnsMoment) -> ConnsRecord? {
        let key = Self.key(frame, handle)
        if let r = open[key] {
            r.last = moment
            touched = r
            return r
        }
        guard open.count < Self.maximumOpen else {
            untracked &+= 1
            return nil
        }
        let r = ConnsRecord(number: nextNumber, controller: frame.controllerIndex, handle: handle, first: moment)
        nextNumber &+= 1
        open[key] = r
        touched = r
        if keepsSeries { r.latencyPoints = ConnsLatencySeries(limit: ConnsSeries.limit) }
        return r
    }

    /// The device node's addresses, identity and name, onto the record.
    private func notePeer(_ r: ConnsRecord, _ walk: TreeWalk) {
        guard let d = node(.device).flatMap({ devices.read(walk, at: $0) }) else { return }
        r.notePeer(address: d.address)
        if let identity = d.identity {
            r.peerIdentity = identity
            r.notePeer(address: identity)
        }
        if let name = d.name { r.peerName = name }
        if r.peerAddress == nil, let a = d.address {
            r.peerAddress = a
            r.peerAddressType = d.addressType
        }
    }

    // MARK: HCI events

    private func event(_ frame: CapturedFrame, _ moment: ConnsMoment, _ walk: TreeWalk) {
        guard let code = value(.eventCode, walk) else { return }
        let status = byte(.status, walk)
        let handle = value(.eventHandle, walk).map { UInt16(truncatingIfNeeded: $0) }
        switch code {
        case 0x3E:
            guard let sub = value(.subevent, walk) else { return }
            switch sub {
            case 0x01, 0x0A, 0x29: connectionComplete(frame, moment, walk, status: status, handle: handle)
            case 0x02, 0x0B, 0x0D: advertisingReport(moment, walk)
            case 0x03:
                guard status == 0, let handle, let r = record(frame, handle, moment) else { return }
                r.parameters.append(parameters(moment, "update", walk))
            case 0x06:
                guard let handle, let r = record(frame, handle, moment) else { return }
                var p = parameters(moment, "request (LL)", walk)
                p.interval = value(.minInterval, walk)
                p.intervalMax = value(.maxInterval, walk)
                r.parameters.append(p)
            case 0x07:
                guard let handle, let r = record(frame, handle, moment) else { return }
                r.dataLength.append(
                    .init(
                        moment: moment,
                        maxTxOctets: value(.maxTxOctets, walk),
                        maxTxTime: value(.maxTxTime, walk),
                        maxRxOctets: value(.maxRxOctets, walk),
                        maxRxTime: value(.maxRxTime, walk)
                    )
                )
            case 0x0C:
                guard let handle, let r = record(frame, handle, moment) else { return }
                r.phy.append(.init(moment: moment, status: status, tx: value(.txPHY, walk), rx: value(.rxPHY, walk)))
            default: break
            }
        case 0x03:  // Connection Complete (BR/EDR); link type 1 is ACL, the others are SCO links
            guard value(.linkType, walk) == 1 else { return }
            connectionComplete(frame, moment, walk, status: status, handle: handle)
        case 0x05:  // Disconnection Complete
            guard status == 0, let handle, let r = record(frame, handle, moment) else { return }
            r.reason = byte(.reason, walk)
            end(r, frame, .disconnected, at: moment)
        case 0x08, 0x59, 0x30:  // Encryption Change (v1, v2), Encryption Key Refresh Complete
            guard let handle, let r = record(frame, handle, moment) else { return }
            let refresh = code == 0x30
            let enabled = refresh ? nil : value(.encryptionEnable, walk)
            r.encryption.append(
                .init(
                    moment: moment,
                    status: status,
                    enabled: enabled,
                    keySize: value(.keySize, walk),
                    refresh: refresh
                )
            )
            if status == 0, enabled ?? 1 != 0, var pairing = r.pairing, pairing.responded, pairing.failed == nil,
                pairing.encrypted == nil
            {
                pairing.encrypted = moment
                r.pairing = pairing
            }
        default: break
        }
    }

    private func parameters(_ moment: ConnsMoment, _ event: String, _ walk: TreeWalk) -> ConnsRecord.Parameters {
        .init(
            moment: moment,
            event: event,
            status: byte(.status, walk),
            interval: value(.interval, walk),
            latency: value(.latency, walk),
            timeout: value(.timeout, walk)
        )
    }

    private func connectionComplete(
        _ frame: CapturedFrame,
        _ moment: ConnsMoment,
        _ walk: TreeWalk,
        status: UInt8?,
        handle: UInt16?
    ) {
        let peer = node(.peerAddress).flatMap(walk.address)
        guard status == 0, let handle else {
            failedAttempts.append((moment, status ?? 0xFF, peer))
            return
        }
        if let old = open[Self.key(frame, handle)] { end(old, frame, .handleReused, at: moment) }
        guard let r = record(frame, handle, moment) else { return }
        r.start = moment
        r.transport = value(.subevent, walk) == nil ? "BR/EDR" : "LE"
        r.localIsCentral = value(.role, walk).map { $0 == 0 }
        r.peerAddress = peer
        r.peerAddressType = value(.peerAddressType, walk)
        r.notePeer(address: peer)
        r.notePeer(address: node(.peerRPA).flatMap(walk.address))
        notePeer(r, walk)
        if r.transport == "LE" { r.parameters.append(parameters(moment, "connection", walk)) }
        r.firstAdvertisement = sightings.take(r.peerAddresses)
    }

    private func end(_ r: ConnsRecord, _ frame: CapturedFrame, _ ending: ConnsRecord.Ending, at moment: ConnsMoment) {
        r.finish(ending, at: moment)
        open[Self.key(frame, r.handle)] = nil
        // Advertisements the peer sent during the connection do not count for the next one.
        sightings.forget(r.peerAddresses)
        links.ended(r)
        finished(r)
    }

    /// Every address in the report's device nodes, as seen from now on if not seen before.
    private func advertisingReport(_ moment: ConnsMoment, _ walk: TreeWalk) {
        let field = f[.deviceAddress]
        for i in 0..<walk.nodes.count where walk.nodes[i].field == field {
            if let a = walk.address(i) { sightings.saw(a, at: moment) }
        }
    }

    // MARK: ACL data

    private func acl(_ frame: CapturedFrame, _ moment: ConnsMoment, _ walk: TreeWalk) {
        guard let h = value(.chandle, walk), let r = record(frame, UInt16(truncatingIfNeeded: h), moment) else {
            return
        }
        notePeer(r, walk)
        upperLayers(r, moment, walk, local: frame.direction == .hostToController)
    }

    /// What went over the connection above the link: ATT, SMP, L2CAP signalling, LE CoC.
    private func upperLayers(_ r: ConnsRecord, _ moment: ConnsMoment, _ walk: TreeWalk, local: Bool) {
        if let layer = node(.att), let op = value(.attOpcode, walk, in: layer..<walk.end(of: layer)) {
            att(UInt8(truncatingIfNeeded: op), r, moment, walk, local: local)
        }
        if let op = byte(.smpOpcode, walk) { smp(op, r, moment, walk, local: local) }
        if byte(.l2capCommandCode, walk) == 0x12 {  // Connection Parameter Update Request
            r.parameters.append(
                .init(
                    moment: moment,
                    event: "request (L2CAP)",
                    status: nil,
                    interval: value(.l2capMinInterval, walk),
                    intervalMax: value(.l2capMaxInterval, walk),
                    latency: value(.l2capLatency, walk),
                    timeout: value(.l2capTimeout, walk)
                )
            )
        }
        if let c = node(.coc) { for c in walk.all(f[.coc], in: c..<walk.nodes.count) { channel(c, r, moment, walk) } }
        if let first = node(.sequenceIssue) {
            for n in walk.all(f[.sequenceIssue], in: first..<walk.nodes.count) {
                let expected = walk.parent(of: n).flatMap { value(.sequenceExpected, walk, in: $0..<walk.end(of: $0)) }
                r.sequenceIssues.add(walk.unsigned(n) ?? 0, expected: expected, at: moment)
            }
        }
    }

    // MARK: Sniffed link layer

    /// A sniffer's packet: a CONNECT_IND starts a connection; data-channel packets carry its
    /// parameter, PHY and data length changes, the start of encryption and its end (LL control
    /// PDUs), and the upper layers. Packets with a bad CRC change nothing. The central counts as
    /// the local side.
    private func linkLayer(_ frame: CapturedFrame, _ moment: ConnsMoment, _ walk: TreeWalk) {
        if value(.llCRCValid, walk) == 0 { return }
        if let type = value(.llPDUType, walk) {
            let advertiser = node(.llAdvA).flatMap(walk.address)
            if type == 5, let n = value(.llConnection, walk) {
                connectIndication(frame, moment, walk, number: UInt16(truncatingIfNeeded: n), advertiser: advertiser)
            } else if let advertiser, type != 3 {
                sightings.saw(advertiser, at: moment)
            }
            return
        }
        guard let n = value(.llConnection, walk),
            let r = record(frame, UInt16(truncatingIfNeeded: n), moment)
        else { return }
        r.sniffed = true
        r.transport = r.transport ?? "LE"
        r.localIsCentral = true
        if r.accessAddress == nil {
            r.accessAddress = value(.llAccessAddress, walk).map { UInt32(truncatingIfNeeded: $0) }
        }
        // The direction the link layer learnt: the central's packets count as sent.
        let central = frame.direction == .hostToController
        switch value(.llControl, walk) {
        case 0x00?:  // LL_CONNECTION_UPDATE_IND
            r.parameters.append(
                .init(
                    moment: moment,
                    event: "update (LL)",
                    status: nil,
                    interval: value(.llUpdateInterval, walk),
                    latency: value(.llUpdateLatency, walk),
                    timeout: value(.llUpdateTimeout, walk)
                )
            )
        case 0x02?:  // LL_TERMINATE_IND
            r.reason = byte(.llError, walk)
            end(r, frame, .disconnected, at: moment)
            return
        case 0x05?:  // LL_START_ENC_REQ: encryption starts
            r.encryption.append(.init(moment: moment, status: 0, enabled: 1, keySize: nil, refresh: false))
            if var pairing = r.pairing, pairing.responded, pairing.failed == nil, pairing.encrypted == nil {
                pairing.encrypted = moment
                r.pairing = pairing
            }
        case 0x15?:  // LL_LENGTH_RSP ends the procedure: the sender's limits, as the central sees them
            let tx = (value(.llMaxTxOctets, walk), value(.llMaxTxTime, walk))
            let rx = (value(.llMaxRxOctets, walk), value(.llMaxRxTime, walk))
            let (send, receive) = central ? (tx, rx) : (rx, tx)
            r.dataLength.append(
                .init(
                    moment: moment,
                    maxTxOctets: send.0,
                    maxTxTime: send.1,
                    maxRxOctets: receive.0,
                    maxRxTime: receive.1
                )
            )
        case 0x18?:  // LL_PHY_UPDATE_IND
            r.phy.append(
                .init(moment: moment, status: 0, tx: value(.llPHYCentral, walk), rx: value(.llPHYPeripheral, walk))
            )
        default:
            break
        }
        upperLayers(r, moment, walk, local: central)
    }

    private func connectIndication(
        _ frame: CapturedFrame,
        _ moment: ConnsMoment,
        _ walk: TreeWalk,
        number: UInt16,
        advertiser: BDAddr?
    ) {
        if let old = open[Self.key(frame, number)] { end(old, frame, .handleReused, at: moment) }
        guard let r = record(frame, number, moment) else { return }
        r.start = moment
        r.transport = "LE"
        r.sniffed = true
        r.localIsCentral = true
        r.centralAddress = node(.llInitA).flatMap(walk.address)
        r.accessAddress = value(.llNewAccessAddress, walk).map { UInt32(truncatingIfNeeded: $0) }
        r.peerAddress = advertiser
        r.peerAddressType = value(.llRxAdd, walk)
        r.notePeer(address: advertiser)
        r.parameters.append(
            .init(
                moment: moment,
                event: "connection",
                status: nil,
                interval: value(.llInterval, walk),
                latency: value(.llLatency, walk),
                timeout: value(.llTimeout, walk)
            )
        )
        r.firstAdvertisement = sightings.take(r.peerAddresses)
    }

    private func att(_ opcode: UInt8, _ r: ConnsRecord, _ moment: ConnsMoment, _ walk: TreeWalk, local: Bool) {
        r.att[local ? 0 : 1].add(opcode)
        switch ATTKind(opcode) {
        case .response, .error:
            if let us = value(.responseTime, walk) {
                r.latency.add(Int64(clamping: us))
                r.latencyPoints?.append(
                    ConnsLatencyPoint(
                        moment: moment,
                        microseconds: Int64(clamping: us),
                        error: ATTKind(opcode) == .error
                    )
                )
            }
            if r.firstATTExchange == nil { r.firstATTExchange = moment }
        case .notification, .indication:
            if r.firstATTExchange == nil { r.firstATTExchange = moment }
        default: break
        }
        if let mtu = value(.mtu, walk), r.mtu.last?.mtu != mtu { r.mtu.append(.init(moment: moment, mtu: mtu)) }
        if let psm = value(.psmValue, walk), let via = PublishedPSMs.via(attOpcode: opcode) {
            let encoding = value(.psmEncoding, walk)
            r.psmPublications.append(
                ConnsPSMPublication(
                    moment: moment,
                    psm: psm,
                    encoding: encoding,
                    encodingName: encoding.flatMap { psmEncodings?.lookup($0) },
                    byLocal: local,
                    via: via
                )
            )
        }
    }

    private func smp(_ opcode: UInt8, _ r: ConnsRecord, _ moment: ConnsMoment, _ walk: TreeWalk, local: Bool) {
        let io = byte(.io, walk)
        let oob = value(.oob, walk) == 1
        let mitm = value(.mitm, walk).map { $0 != 0 } ?? false
        let sc = value(.secureConnections, walk).map { $0 != 0 } ?? false
        let bonding = value(.bonding, walk).map { $0 != 0 } ?? false
        let keySize = byte(.smpKeySize, walk)
        switch opcode {
        case 0x01:  // Pairing Request
            r.pairings &+= 1
            var p = ConnsPairing(requested: moment)
            p.initiatorIsLocal = local
            p.initiatorIO = io
            p.initiatorOOB = oob
            p.initiatorMITM = mitm
            p.initiatorSC = sc
            p.bonding = bonding
            p.keySize = keySize
            r.pairing = p
        case 0x02:  // Pairing Response
            guard var p = r.pairing, !p.responded else { return }
            p.responded = true
            p.responderIO = io
            p.responderOOB = oob
            p.responderMITM = mitm
            p.responderSC = sc
            p.bonding = p.bonding && bonding
            if let keySize { p.keySize = min(p.keySize ?? keySize, keySize) }
            r.pairing = p
        case 0x05:  // Pairing Failed
            guard var p = r.pairing, p.failed == nil else { return }
            p.failed = (moment, byte(.smpReason, walk) ?? 0)
            r.pairing = p
        default: break
        }
    }

    /// One `coc` group: a K-frame's or a signalling packet's view of a channel.
    private func channel(_ c: Int, _ r: ConnsRecord, _ moment: ConnsMoment, _ walk: TreeWalk) {
        let range = c..<walk.end(of: c)
        guard let n = value(.channel, walk, in: range), let channel = r.channel(n) else { return }
        if keepsSeries, channel.sides[0].creditSteps == nil {
            for s in channel.sides.indices {
                channel.sides[s].creditSteps = ConnsCreditSeries(limit: ConnsSeries.limit)
                channel.sides[s].sduRate = ReportRate()
            }
        }
        if channel.opened == nil { channel.opened = moment }
        if let psm = value(.psm, walk, in: range) ?? value(.psm, walk) { channel.psm = psm }
        if let cid = value(.localCID, walk, in: range) { channel.localCID = UInt16(truncatingIfNeeded: cid) }
        if let cid = value(.peerCID, walk, in: range) { channel.peerCID = UInt16(truncatingIfNeeded: cid) }
        if let who = value(.initiator, walk, in: range) { channel.openedByLocal = who == 1 }
        if let mode = value(.mode, walk, in: range) { channel.mode = mode }
        if let frame = value(.psmPublishedIn, walk, in: range), channel.psmPublishedIn == nil {
            channel.psmPublishedIn = Int(clamping: frame)
            channel.psmPublishedVia = value(.psmPublishedVia, walk, in: range)
            links.opened(channel, on: r)
        }
        if let other = value(.dualRoleWith, walk, in: range), channel.dualRoleWith == nil {
            channel.dualRoleWith = other
            links.opened(channel, on: r)
        }
        // 1: the local host sent this K-frame or credit packet; 2: the peer did.
        let sender = value(.sender, walk, in: range)
        var unfinished: UInt64? = nil
        if let sdu = value(.sduIndex, walk, in: range), let sender, sender == 1 || sender == 2 {
            let side = Int(sender - 1)
            channel.sides[side].kFrames &+= 1
            if let length = value(.sduLength, walk, in: range) {
                channel.sides[side].sdus &+= 1
                channel.sides[side].sduBytes &+= length
                if let time = moment.time { channel.sides[side].sduRate?.add(time, bytes: length) }
            }
            if let pending = value(.sduPending, walk, in: range), pending > 0 { unfinished = sdu }
        }
        let granted = walk.parent(of: c).flatMap { value(.credits, walk, in: $0..<walk.end(of: $0)) }
        if let tx = value(.txCredits, walk, in: range) {
            channel.sides[0].balance(tx, at: moment, unfinishedSDU: sender == 1 ? unfinished : nil, granted: granted)
        }
        if let rx = value(.rxCredits, walk, in: range) {
            channel.sides[1].balance(rx, at: moment, unfinishedSDU: sender == 2 ? unfinished : nil, granted: granted)
        }
    }
}

/// When each advertiser was first seen, for the time from its first advertisement to the
/// connection. Two generations of at most `generation` addresses each: when the young one is
/// full it becomes the old one and the old one is forgotten, so memory stays bounded and only
/// addresses not seen for a whole generation lose their first sighting.
struct AdvertisingSightings {
    static let generation = 32_768
    private var young: [BDAddr: ConnsMoment] = [:]
    private var old: [BDAddr: ConnsMoment] = [:]

    mutating func saw(_ address: BDAddr, at moment: ConnsMoment) {
        if young[address] != nil { return }
        if young.count >= Self.generation {
            old = young
            young = [:]
        }
        young[address] = old[address] ?? moment
    }

    /// The earliest first sighting of any of `addresses`, which are then forgotten.
    mutating func take(_ addresses: [BDAddr]) -> ConnsMoment? {
        var earliest: ConnsMoment? = nil
        for a in addresses {
            for m in [young[a], old[a]].compactMap({ $0 }) where earliest.map({ Self.before(m, $0) }) ?? true {
                earliest = m
            }
        }
        forget(addresses)
        return earliest
    }

    /// By time where both have one, else by frame.
    private static func before(_ a: ConnsMoment, _ b: ConnsMoment) -> Bool {
        if let x = a.time, let y = b.time { return x < y }
        return a.frame < b.frame
    }

    mutating func forget(_ addresses: [BDAddr]) {
        for a in addresses {
            young[a] = nil
            old[a] = nil
        }
    }
}
