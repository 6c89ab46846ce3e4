public import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import BLEInspectSession

/// Names of HCI and SMP codes, from the registry's field descriptors.
struct ConnsNames {
    let reason: ValueNames?
    let status: ValueNames?
    let smpReason: ValueNames?
    let addressType: ValueNames?
    let phy: ValueNames?
    let ioCapability: ValueNames?

    init(_ registry: DissectorRegistry) {
        func names(_ field: String) -> ValueNames? {
            registry.field(named: field).flatMap { registry.descriptor($0).valueNames }
        }
        reason = names("bthci_evt.reason")
        status = names("bthci_evt.status")
        smpReason = names("btsmp.reason")
        addressType = names("bthci_evt.le_peer_address_type")
        phy = names("bthci_evt.le_tx_phy")
        ioCapability = names("btsmp.io_capability")
    }

    /// The PHY's name, from the HCI dissector's names.
    func phy(_ v: UInt64?) -> String { v.map { Self.named($0, phy) } ?? "?" }

    /// `NoInputNoOutput`, from the SMP dissector's names.
    func io(_ v: UInt8?) -> String? { v.map { Self.named(UInt64($0), ioCapability) } }

    /// The value's name, or its hex value.
    private static func named(_ v: UInt64, _ names: ValueNames?) -> String {
        names?.lookup(v) ?? HexText.prefixed(v, digits: 2)
    }

    /// `0x13 Remote User Terminated Connection`.
    static func coded(_ v: UInt8, _ names: ValueNames?) -> String {
        let code = HexText.prefixed(UInt64(v), digits: 2)
        return names?.lookup(UInt64(v)).map { code + " " + TerminalSafeText.escape($0) } ?? code
    }

}

/// `conns`' output: one block (or JSON object) per connection, written as each connection
/// ends, in the order the connections began.
final class ConnsWriter {
    static let schema = "bleinspect.conns/1"
    /// Finished connections waiting for an earlier one still open; past this many they are
    /// written anyway, so that memory stays bounded.
    static let maximumWaiting = 1024

    let json: Bool
    let sink: OutputSink
    let names: ConnsNames
    /// The capture-wide links (set before the first connection is taken).
    var links = ConnsCaptureLinks()
    private var waiting: [Int: ConnsRecord] = [:]
    private var nextNumber = 1
    private(set) var written = 0

    init(json: Bool, sink: OutputSink, names: ConnsNames) {
        self.json = json
        self.sink = sink
        self.names = names
    }

    private var started = false

    /// The JSON document's opening, before the first connection.
    private func start() {
        guard !started else { return }
        started = true
        if json { sink.append("{\n  \"schema\": \"\(Self.schema)\",\n  \"connections\": [") }
    }

    /// Takes a finished connection; writes it once every earlier one has been written.
    func take(_ r: ConnsRecord) {
        waiting[r.number] = r
        while let next = waiting.removeValue(forKey: nextNumber) {
            write(next)
            nextNumber += 1
        }
        if waiting.count > Self.maximumWaiting {
            for n in waiting.keys.sorted() {
                if let r = waiting.removeValue(forKey: n) { write(r) }
            }
        }
    }

    /// Writes what is left and the closing part.
    func finish(_ builder: ConnsBuilder) {
        start()
        for n in waiting.keys.sorted() {
            if let r = waiting.removeValue(forKey: n) { write(r) }
        }
        if json {
            var tail: [(String, JSONValue)] = [
                ("failed_attempts", .array(builder.failedAttempts.items.map(failedJSON))),
                ("frames_not_followed", .int(builder.untracked)),
            ]
            if builder.failedAttempts.dropped > 0 {
                tail.append(("failed_attempts_not_listed", .int(builder.failedAttempts.dropped)))
            }
            tail += ConnsJSON.links(links)
            let body = JSONValue.object(tail).text.dropFirst(2).dropLast(3)  // the members only
            sink.append(written == 0 ? "],\n" : "\n  ],\n")
            sink.append(String(body) + "\n}\n")
        } else {
            if written == 0 { sink.append("No connections.\n") }
            for a in builder.failedAttempts.items {
                let peer = a.peer.map { " to " + ViewText.address($0, upperCase: true) } ?? ""
                sink.append(
                    "Failed connection attempt\(peer) (frame \(a.moment.frame)): status "
                        + ConnsNames.coded(a.status, names.status) + "\n"
                )
            }
            if builder.untracked > 0 {
                sink.append(
                    "\(builder.untracked) frames of connections past the first \(ConnsBuilder.maximumOpen) open at once were not followed.\n"
                )
            }
            sink.append(ConnsText.links(links))
        }
        sink.flush()
    }

    private func write(_ r: ConnsRecord) {
        start()
        if json {
            sink.append(written == 0 ? "\n    " : ",\n    ")
            let text = ConnsJSON.connection(r, names, links).text.dropLast()
            sink.append(String(text.replacing("\n", with: "\n    ")))
        } else {
            if written > 0 { sink.append("\n") }
            sink.append(ConnsText.block(r, names, links))
        }
        written += 1
        sink.flushIfFull()
    }

    private func failedJSON(_ a: (moment: ConnsMoment, status: UInt8, peer: BDAddr?)) -> JSONValue {
        .object([
            ("frame", .int(a.moment.frame)), ("time_us", .optional(a.moment.time)), ("status", .int(a.status)),
            ("status_name", .optional(names.status?.lookup(UInt64(a.status)))),
            ("peer", .optional(a.peer.map { ViewText.address($0, upperCase: false) })),
        ])
    }
}

/// Durations and times as `conns` prints them.
enum ConnsTime {
    /// `1.498900 s` from a microsecond count.
    static func seconds(_ us: Int64) -> String {
        let sign = us < 0 ? "-" : ""
        let m = us.magnitude
        let fraction = String(m % 1_000_000)
        return sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction + " s"
    }

    /// `748.900 ms` below a second, else seconds.
    static func short(_ us: Int64) -> String {
        guard us.magnitude < 1_000_000 else { return seconds(us) }
        let sign = us < 0 ? "-" : ""
        let m = us.magnitude
        let fraction = String(m % 1000)
        return sign + String(m / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + " ms"
    }

    /// `+0.520000 s` after `origin`.
    static func offset(_ m: ConnsMoment, from origin: ConnsMoment) -> String {
        guard let d = m.since(origin) else { return "frame \(m.frame)" }
        return (d >= 0 ? "+" : "") + seconds(d)
    }

    static func absolute(_ m: ConnsMoment) -> String {
        guard let us = m.time else { return "time unknown" }
        let t = Timestamp(unixMicroseconds: us)
        return TimeFormat.absolute.format(t, first: t, previous: t)
    }

    /// A connection interval in units of 1.25 ms: `15.00 ms`.
    static func interval(_ units: UInt64) -> String {
        let us = units.multipliedReportingOverflow(by: 1250)
        guard !us.overflow else { return "?" }
        let hundredths = us.partialValue / 10
        let cents = String(hundredths % 100)
        return String(hundredths / 100) + "." + (cents.count < 2 ? "0" : "") + cents + " ms"
    }
}

/// The text block of one connection.
enum ConnsText {
    static func block(_ r: ConnsRecord, _ names: ConnsNames, _ links: ConnsCaptureLinks) -> String {
        var lines: [String] = []
        func line(_ label: String, _ text: String) {
            lines.append("  " + label.padding(toLength: 13) + text)
        }
        func more(_ text: String) { lines.append(String(repeating: " ", count: 15) + text) }
        let origin = r.origin

        var heading = "Connection \(r.number): handle " + ViewText.handle(r.handle)
        if r.sniffed {
            heading =
                "Connection \(r.number): access address "
                + (r.accessAddress.map { "0x" + String($0, radix: 16, uppercase: true) } ?? "not known")
        }
        if let t = r.transport { heading += ", " + t }
        if let c = r.controller { heading += " on hci\(c)" }
        lines.append(heading)
        line("peer:", peer(r, names))
        switch r.localIsCentral {
        case _ where r.sniffed:
            line(
                "role:",
                "sniffed over the air; central "
                    + (r.centralAddress.map { ViewText.address($0, upperCase: true) } ?? "not known")
                    + ", peer peripheral (the central's side counts as local)"
            )
        case true?: line("role:", "local host central, peer peripheral")
        case false?: line("role:", "local host peripheral, peer central")
        case nil: line("role:", "not known (connection complete not in the capture)")
        }
        if let start = r.start {
            line("start:", ConnsTime.absolute(start) + " (frame \(start.frame))")
        } else {
            line(
                "start:",
                "before the capture; first frame " + ConnsTime.absolute(r.first) + " (frame \(r.first.frame))"
            )
        }
        line("end:", ending(r, names))
        if let end = r.end, let d = end.since(origin) {
            line("duration:", ConnsTime.seconds(d) + (r.start == nil ? " or more" : ""))
        }
        if let advert = r.firstAdvertisement, let start = r.start {
            var text =
                "first advertisement \(ConnsTime.short(start.since(advert) ?? 0)) before the connection (frame \(advert.frame))"
            if let first = r.firstATTExchange, let d = first.since(advert) {
                text += "; first ATT exchange \(ConnsTime.short(d)) after it"
            }
            line("advertising:", text)
        } else if r.start != nil, r.localIsCentral == true {
            line("advertising:", "no advertisement from the peer before the connection")
        }

        for (k, p) in r.parameters.items.enumerated() {
            let text =
                ConnsTime.offset(p.moment, from: origin) + "  " + parameters(p, names) + "  (frame \(p.moment.frame))"
            if k == 0 { line("parameters:", text) } else { more(text) }
        }
        // LE-only lines are left out of a BR/EDR connection's block when they would be empty.
        let le = r.transport != "BR/EDR"
        if r.parameters.isEmpty && le { line("parameters:", "not seen") }
        dropped(r.parameters.dropped, more)

        if r.mtu.isEmpty { line("ATT MTU:", "no exchange seen (23)") }
        for (k, m) in r.mtu.items.enumerated() {
            let text = ConnsTime.offset(m.moment, from: origin) + "  \(m.mtu)  (frame \(m.moment.frame))"
            if k == 0 { line("ATT MTU:", text) } else { more(text) }
        }
        if r.phy.isEmpty && le { line("PHY:", "no PHY update seen") }
        for (k, p) in r.phy.items.enumerated() {
            var text = ConnsTime.offset(p.moment, from: origin) + "  "
            if let s = p.status, s != 0 {
                text += "update failed: " + ConnsNames.coded(s, names.status)
            } else {
                text += "tx " + names.phy(p.tx) + ", rx " + names.phy(p.rx)
            }
            text += "  (frame \(p.moment.frame))"
            if k == 0 { line("PHY:", text) } else { more(text) }
        }
        dropped(r.phy.dropped, more)
        if r.dataLength.isEmpty && le { line("data length:", "no change seen") }
        for (k, d) in r.dataLength.items.enumerated() {
            let text =
                ConnsTime.offset(d.moment, from: origin)
                + "  tx \(number(d.maxTxOctets)) bytes/\(number(d.maxTxTime)) µs, "
                + "rx \(number(d.maxRxOctets)) bytes/\(number(d.maxRxTime)) µs  (frame \(d.moment.frame))"
            if k == 0 { line("data length:", text) } else { more(text) }
        }
        dropped(r.dataLength.dropped, more)
        if r.encryption.isEmpty { line("encryption:", "not seen") }
        for (k, e) in r.encryption.items.enumerated() {
            var text = ConnsTime.offset(e.moment, from: origin) + "  "
            if let s = e.status, s != 0 {
                text += (e.refresh ? "key refresh failed: " : "failed: ") + ConnsNames.coded(s, names.status)
            } else if e.refresh {
                text += "key refreshed"
            } else {
                text += e.enabled == 0 ? "off" : "on"
                if let size = e.keySize { text += ", key size \(size)" }
            }
            text += "  (frame \(e.moment.frame))"
            if k == 0 { line("encryption:", text) } else { more(text) }
        }
        dropped(r.encryption.dropped, more)
        line("pairing:", pairing(r, origin, names))

        let sent = r.att[0]
        let received = r.att[1]
        if sent.total + received.total == 0 {
            line("ATT:", "none")
        } else {
            line("ATT:", "sent " + counts(sent) + "; received " + counts(received))
            if r.latency.count > 0, let lo = r.latency.minimum, let hi = r.latency.maximum,
                let median = r.latency.median
            {
                let approx = r.latency.exact ? "" : " (median of a sample of \(r.latency.samples.count))"
                line(
                    "ATT latency:",
                    "request→response min \(ConnsTime.short(lo)), median \(ConnsTime.short(median)), max \(ConnsTime.short(hi)) over \(r.latency.count) responses"
                        + approx
                )
            }
            if let first = r.firstATTExchange {
                line(
                    "first ATT:",
                    "exchange complete " + ConnsTime.offset(first, from: origin) + " (frame \(first.frame))"
                )
            }
        }
        if r.sequenceIssues.total > 0 { line("sequence:", r.sequenceIssues.text) }
        for p in r.psmPublications.items { line("L2CAP PSM:", psmPublication(p, links)) }
        dropped(r.psmPublications.dropped, more)
        for c in r.channels { channel(c, r, origin, into: &lines) }
        if r.channelsDropped > 0 { lines.append("  (\(r.channelsDropped) frames of further channels not followed)") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func peer(_ r: ConnsRecord, _ names: ConnsNames) -> String {
        var text = r.peerAddress.map { ViewText.address($0, upperCase: true) } ?? "address not seen"
        if let t = r.peerAddressType { text += " (" + (names.addressType?.lookup(t) ?? "type \(t)") + ")" }
        if let identity = r.peerIdentity, identity != r.peerAddress {
            text += ", identity " + ViewText.address(identity, upperCase: true)
        }
        if let name = r.peerName { text += " \"" + TerminalSafeText.escape(name) + "\"" }
        return text
    }

    static func ending(_ r: ConnsRecord, _ names: ConnsNames) -> String {
        guard let end = r.end else { return "open" }
        let when = ConnsTime.absolute(end) + " (frame \(end.frame))"
        switch r.ending {
        case .disconnected?:
            return when + ", disconnected: "
                + (r.reason.map { ConnsNames.coded($0, names.reason) } ?? "reason not given")
        case .handleReused?: return when + ", not seen to end: a new connection got its handle"
        case .captureEnded?, nil: return "still open when the capture ends, last frame " + when
        }
    }

    static func parameters(_ p: ConnsRecord.Parameters, _ names: ConnsNames) -> String {
        var text = p.event.padding(toLength: 16)
        if p.event != "connection" && p.event != "update" {
            text +=
                "interval " + (p.interval.map(ConnsTime.interval) ?? "?") + "–"
                + (p.intervalMax.map(ConnsTime.interval) ?? "?")
        } else {
            text += "interval " + (p.interval.map(ConnsTime.interval) ?? "?")
        }
        text += ", latency " + number(p.latency) + ", supervision timeout "
        text += p.timeout.map { "\($0.multipliedReportingOverflow(by: 10).partialValue) ms" } ?? "?"
        return text
    }

    static func pairing(_ r: ConnsRecord, _ origin: ConnsMoment, _ names: ConnsNames) -> String {
        guard let p = r.pairing else {
            return r.encryption.items.contains { $0.status == 0 && $0.enabled != 0 }
                ? "none on this connection (encrypted with a key from an earlier pairing)" : "none"
        }
        var parts: [String] = []
        if p.responded {
            parts.append(p.secureConnections ? "LE Secure Connections" : "LE legacy pairing")
            parts.append(p.method ?? "method unknown")
        } else {
            parts.append("requested, no response seen")
        }
        let who = p.initiatorIsLocal.map { $0 ? "local host" : "peer" } ?? "?"
        parts.append(
            "initiator \(who) (\(names.io(p.initiatorIO) ?? "?")), responder ("
                + (names.io(p.responderIO) ?? "?") + ")"
        )
        var flags: [String] = []
        if p.initiatorMITM || p.responderMITM { flags.append("MITM") }
        if p.bonding { flags.append("bonding") }
        if let k = p.keySize { flags.append("key size \(k)") }
        if !flags.isEmpty { parts.append(flags.joined(separator: ", ")) }
        if let failed = p.failed {
            parts.append(
                "failed: " + ConnsNames.coded(failed.reason, names.smpReason) + " (frame \(failed.moment.frame))"
            )
        } else if let e = p.encrypted {
            parts.append("encrypted " + ConnsTime.offset(e, from: origin) + " (frame \(e.frame))")
        } else {
            parts.append("not seen to complete")
        }
        if r.pairings > 1 { parts.append("last of \(r.pairings) pairings") }
        return parts.joined(separator: "; ")
    }

    static func counts(_ c: ATTCounts) -> String {
        guard c.total > 0 else { return "0" }
        let kinds: [(Int, String)] = [
            (c.requests, "request"), (c.responses, "response"), (c.errors, "error"), (c.commands, "command"),
            (c.notifications, "notification"), (c.indications, "indication"), (c.confirmations, "confirmation"),
            (c.other, "other"),
        ]
        let shown = kinds.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" + ($0.0 == 1 ? "" : "s") }
        return "\(c.total) (" + shown.joined(separator: ", ") + ")"
    }

    static func channel(_ c: ConnsChannel, _ r: ConnsRecord, _ origin: ConnsMoment, into lines: inout [String]) {
        var head = "  channel \(c.number):  PSM " + (c.psm.map { HexText.prefixed($0, digits: 4) } ?? "?")
        if let cid = c.localCID { head += ", local CID " + ViewText.handle(cid) }
        if let cid = c.peerCID { head += ", peer CID " + ViewText.handle(cid) }
        if let local = c.openedByLocal { head += ", opened by the " + (local ? "local host" : "peer") }
        if let opened = c.opened { head += " " + ConnsTime.offset(opened, from: origin) + " (frame \(opened.frame))" }
        if let published = c.psmPublishedIn {
            head += ", PSM " + ConnsPSMPublication.viaText(c.psmPublishedVia) + " in frame \(published)"
        }
        if c.mode == 3 {
            // A BR/EDR channel in basic mode: no credits, and its frames are not K-frames.
            lines.append(head + "; BR/EDR, not credit based")
            return
        }
        if c.mode == 2 { head += "; enhanced credit based" }
        lines.append(head)
        for (k, side) in c.sides.enumerated() {
            var text = "    " + (k == 0 ? "sent:     " : "received: ")
            text +=
                "\(side.sdus) SDU" + (side.sdus == 1 ? "" : "s") + ", \(side.sduBytes) bytes, \(side.kFrames) K-frames"
            let who = k == 0 ? "local host" : "peer"
            text += "; \(who) stalled at 0 credits: "
            let stalls = side.stalls.items.count + side.stalls.dropped
            text +=
                stalls == 0
                ? "never"
                : "\(stalls) time" + (stalls == 1 ? "" : "s") + ", " + ConnsTime.seconds(side.stalledMicroseconds)
                    + " in all"
            lines.append(text)
            // The text lists the first ten; --json lists up to 256.
            for s in side.stalls.items.prefix(10) {
                var item = "      frames \(s.start.frame)→" + (s.end.map { "\($0.frame)" } ?? "?")
                item += ": " + (s.end.flatMap { $0.since(s.start) }.map(ConnsTime.short) ?? "?")
                item += " with SDU \(s.sdu ?? 0) unfinished"
                item += s.creditsGranted.map { ", until +\($0) credits" } ?? ", until the connection ended"
                lines.append(item)
            }
            if stalls > 10 { lines.append("      (\(stalls - 10) more stalls; --json lists up to 256)") }
            if side.zeroCreditIntervals > side.stalls.items.count + side.stalls.dropped {
                lines.append(
                    "      at 0 credits \(side.zeroCreditIntervals) times, "
                        + ConnsTime.seconds(side.zeroCreditMicroseconds)
                        + " in all (idle or stalled)"
                )
            }
        }
    }

    static func number(_ v: UInt64?) -> String { v.map { "\($0)" } ?? "?" }

    static func dropped(_ n: Int, _ more: (String) -> Void) {
        if n > 0 { more("(\(n) more not listed)") }
    }
}

extension String {
    /// The string padded with spaces to `length` characters (never cut).
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self + " " : self + String(repeating: " ", count: length - count)
    }
}

/// The JSON object of one connection (schema `bleinspect.conns/1`, docs/VIEWS.md).
enum ConnsJSON {
    static func moment(_ m: ConnsMoment?) -> JSONValue {
        guard let m else { return .null }
        return .object([("frame", .int(m.frame)), ("time_us", .optional(m.time))])
    }

    static func connection(_ r: ConnsRecord, _ names: ConnsNames, _ links: ConnsCaptureLinks) -> JSONValue {
        let origin = r.origin
        var members: [(String, JSONValue)] = [
            ("number", .int(r.number)),
            ("controller", .optional(r.controller)),
            ("handle", .int(r.handle)),
            (
                "peer",
                .object([
                    ("address", .optional(r.peerAddress.map { ViewText.address($0, upperCase: false) })),
                    ("address_type", .optional(r.peerAddressType)),
                    ("identity_address", .optional(r.peerIdentity.map { ViewText.address($0, upperCase: false) })),
                    ("name", .optional(r.peerName)),
                ])
            ),
            ("transport", .optional(r.transport)),
            ("local_role", .optional(r.localIsCentral.map { $0 ? "central" : "peripheral" })),
            ("sniffed", .bool(r.sniffed)),
            ("central_address", .optional(r.centralAddress.map { ViewText.address($0, upperCase: false) })),
            ("access_address", .optional(r.accessAddress)),
            ("start", moment(r.start)),
            ("first_frame", moment(r.first)),
            ("end", moment(r.end)),
            ("ended_by", .optional(r.ending?.rawValue)),
            ("reason", .optional(r.reason)),
            ("reason_name", .optional(r.reason.flatMap { names.reason?.lookup(UInt64($0)) })),
            ("duration_us", .optional(r.end?.since(origin))),
            ("first_advertisement", moment(r.firstAdvertisement)),
            ("advertisement_to_connection_us", .optional(r.start?.since(r.firstAdvertisement))),
            ("advertisement_to_first_att_us", .optional(r.firstATTExchange?.since(r.firstAdvertisement))),
            ("first_att_exchange", moment(r.firstATTExchange)),
            ("connection_to_first_att_us", .optional(r.firstATTExchange?.since(r.start))),
            ("parameters", list(r.parameters, parameters)),
            (
                "mtu",
                list(r.mtu) {
                    .object([
                        ("frame", .int($0.moment.frame)), ("time_us", .optional($0.moment.time)), ("mtu", .int($0.mtu)),
                    ])
                }
            ),
            (
                "phy",
                list(r.phy) { p in
                    .object([
                        ("frame", .int(p.moment.frame)), ("time_us", .optional(p.moment.time)),
                        ("status", .optional(p.status)),
                        ("tx", .optional(p.tx)), ("rx", .optional(p.rx)),
                    ])
                }
            ),
            (
                "data_length",
                list(r.dataLength) { d in
                    .object([
                        ("frame", .int(d.moment.frame)), ("time_us", .optional(d.moment.time)),
                        ("max_tx_octets", .optional(d.maxTxOctets)), ("max_tx_time_us", .optional(d.maxTxTime)),
                        ("max_rx_octets", .optional(d.maxRxOctets)), ("max_rx_time_us", .optional(d.maxRxTime)),
                    ])
                }
            ),
            (
                "encryption",
                list(r.encryption) { e in
                    .object([
                        ("frame", .int(e.moment.frame)), ("time_us", .optional(e.moment.time)),
                        ("status", .optional(e.status)),
                        ("event", .string(e.refresh ? "key_refresh" : "change")), ("enabled", .optional(e.enabled)),
                        ("key_size", .optional(e.keySize)),
                    ])
                }
            ),
            ("pairing", r.pairing.map { pairing($0, count: r.pairings, names) } ?? .null),
            ("att", att(r)),
            ("sequence_issues", r.sequenceIssues.json),
            ("psm_publications", .array(r.psmPublications.items.map { psmPublication($0, links) })),
            ("channels", .array(r.channels.map(channel))),
        ]
        if r.channelsDropped > 0 { members.append(("channel_frames_not_followed", .int(r.channelsDropped))) }
        return .object(members)
    }

    static func list<T>(_ l: CappedList<T>, _ body: (T) -> JSONValue) -> JSONValue {
        var items = l.items.map(body)
        if l.dropped > 0 { items.append(.object([("not_listed", .int(l.dropped))])) }
        return .array(items)
    }

    static func parameters(_ p: ConnsRecord.Parameters) -> JSONValue {
        .object([
            ("frame", .int(p.moment.frame)), ("time_us", .optional(p.moment.time)), ("event", .string(p.event)),
            ("status", .optional(p.status)),
            ("interval_us", .optional(p.interval.map { $0.multipliedReportingOverflow(by: 1250).partialValue })),
            ("interval_max_us", .optional(p.intervalMax.map { $0.multipliedReportingOverflow(by: 1250).partialValue })),
            ("latency", .optional(p.latency)),
            (
                "supervision_timeout_ms",
                .optional(p.timeout.map { $0.multipliedReportingOverflow(by: 10).partialValue })
            ),
        ])
    }

    static func pairing(_ p: ConnsPairing, count: Int, _ names: ConnsNames) -> JSONValue {
        .object([
            ("requested", moment(p.requested)),
            ("initiator", .optional(p.initiatorIsLocal.map { $0 ? "local" : "peer" })),
            ("secure_connections", p.responded ? .bool(p.secureConnections) : .null),
            ("method", .optional(p.method)),
            ("initiator_io", .optional(names.io(p.initiatorIO))),
            ("responder_io", .optional(names.io(p.responderIO))),
            ("mitm", .bool(p.initiatorMITM || p.responderMITM)),
            ("bonding", .bool(p.bonding)),
            ("key_size", .optional(p.keySize)),
            (
                "failed",
                p.failed.map { f in
                    .object([
                        ("frame", .int(f.moment.frame)), ("time_us", .optional(f.moment.time)),
                        ("reason", .int(f.reason)),
                        ("reason_name", .optional(names.smpReason?.lookup(UInt64(f.reason)))),
                    ])
                } ?? .null
            ),
            ("encrypted", moment(p.encrypted)),
            ("pairings_on_connection", .int(count)),
        ])
    }

    static func att(_ r: ConnsRecord) -> JSONValue {
        func counts(_ c: ATTCounts) -> JSONValue {
            .object([
                ("requests", .int(c.requests)), ("responses", .int(c.responses)), ("errors", .int(c.errors)),
                ("commands", .int(c.commands)), ("notifications", .int(c.notifications)),
                ("indications", .int(c.indications)), ("confirmations", .int(c.confirmations)),
                ("other", .int(c.other)),
            ])
        }
        let l = r.latency
        return .object([
            ("sent", counts(r.att[0])),
            ("received", counts(r.att[1])),
            (
                "response_time_us",
                .object([
                    ("count", .int(l.count)), ("min", .optional(l.minimum)), ("median", .optional(l.median)),
                    ("max", .optional(l.maximum)), ("median_exact", .bool(l.exact)),
                ])
            ),
        ])
    }

    static func channel(_ c: ConnsChannel) -> JSONValue {
        func side(_ s: ConnsChannelSide) -> JSONValue {
            var stalls = s.stalls.items.map { z -> JSONValue in
                .object([
                    ("start_frame", .int(z.start.frame)), ("end_frame", .optional(z.end?.frame)),
                    ("start_time_us", .optional(z.start.time)), ("end_time_us", .optional(z.end?.time)),
                    ("duration_us", .optional(z.end?.since(z.start))), ("sdu", .optional(z.sdu)),
                    ("credits_granted", .optional(z.creditsGranted)),
                ])
            }
            if s.stalls.dropped > 0 { stalls.append(.object([("not_listed", .int(s.stalls.dropped))])) }
            return .object([
                ("sdus", .int(s.sdus)), ("sdu_bytes", .int(s.sduBytes)), ("k_frames", .int(s.kFrames)),
                ("stalls", .array(stalls)), ("stalled_us", .int(s.stalledMicroseconds)),
                ("zero_credit_intervals", .int(s.zeroCreditIntervals)),
                ("zero_credit_us", .int(s.zeroCreditMicroseconds)),
                ("credits_at_end", .optional(s.credits)),
            ])
        }
        return .object([
            ("channel", .int(c.number)), ("psm", .optional(c.psm)),
            (
                "mode",
                .optional(
                    c.mode.map { m in
                        m == 1 ? "le_credit_based" : m == 2 ? "enhanced_credit_based" : m == 3 ? "bredr" : "\(m)"
                    }
                )
            ),
            ("local_cid", .optional(c.localCID)), ("peer_cid", .optional(c.peerCID)),
            ("opened_by", .optional(c.openedByLocal.map { $0 ? "local" : "peer" })),
            ("first_seen", moment(c.opened)),
            ("psm_published_in_frame", .optional(c.psmPublishedIn)),
            ("psm_published_via", .optional(c.psmPublishedVia.map { ConnsPSMPublication.viaText($0) })),
            ("dual_role_with", .optional(c.dualRoleWith)),
            ("sent", side(c.sides[0])), ("received", side(c.sides[1])),
        ])
    }
}

/// `bleinspect conns`: reads the captures once and writes each connection as it ends.
public enum ConnsCommandRunner {
    public static func run(
        scan: CaptureScan,
        json: Bool,
        output: OutputSink,
        errorOutput: (String) -> Void
    ) -> ExitStatus {
        var writer: ConnsWriter? = nil
        var builder: ConnsBuilder? = nil
        let status = scan.runView("conns", errorOutput: errorOutput) { registry in
            let w = ConnsWriter(json: json, sink: output, names: ConnsNames(registry))
            let b = ConnsBuilder(registry: registry) { w.take($0) }
            w.links = b.links
            writer = w
            builder = b
            return .success(.init(missing: b.missingFields, take: { b.add($0, $1) }))
        }
        guard let writer, let builder, status != .software else { return status }
        builder.finish()
        writer.finish(builder)
        if output.failure != nil { return .cannotCreateOutput }
        return status
    }
}
