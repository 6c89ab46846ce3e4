import BLEInspectCore

/// A device the report lists: an address seen in the `device` fields, its name and its frames.
struct ReportDevice {
    var address: BDAddr
    var name: String?
    var frames = 0
    var first: ConnsMoment
    /// The RSSI of its adverts over time (dBm), downsampled past 128 points.
    var rssi = ReportSeries(limit: 128)
    /// The times between its adverts (µs), the first 1,024, for the advertising interval.
    var gaps = CappedList<Int64>(limit: 1024)
    var lastAdvert: Int64?

    init(address: BDAddr, name: String?, first: ConnsMoment) {
        self.address = address
        self.name = name
        self.first = first
    }

    /// Takes an advert heard at `time` with `rssi` (nil: not given).
    mutating func advert(_ time: Int64, rssi: Int64?) {
        if let rssi { self.rssi.add(time: time, value: rssi) }
        if let last = lastAdvert, time >= last {
            let (gap, overflow) = time.subtractingReportingOverflow(last)
            if !overflow { gaps.append(gap) }
        }
        lastAdvert = time
    }

    /// The median time between adverts, nil with fewer than two.
    var interval: Int64? {
        let sorted = gaps.items.sorted()
        return sorted.isEmpty ? nil : sorted[sorted.count / 2]
    }
}

/// Malformed frames and expert warnings or errors, for one connection or outside any.
struct ReportProblems {
    var malformed = 0
    var warnings = 0
    /// The first few frames, to name on the page.
    var frames = CappedList<Int>(limit: 20)
}

/// What `report` learns from a capture beside `conns`' connection records: its span, frame counts
/// by protocol, devices, and malformed frames or warnings by connection. Everything is bounded.
final class ReportCapture {
    static let deviceLimit = 4096
    static let connectionLimit = 2000
    /// The most series points (`ConnsSeries`) the finished connections keep in all; a connection
    /// past it is drawn without its response times and credit lines.
    var pointBudget = 2_000_000

    private(set) var first: ConnsMoment?
    private(set) var last: ConnsMoment?
    private(set) var frames = 0
    /// Frames holding each protocol layer, by field id, and the frame that counted it last (a
    /// frame counts once a layer).
    private var layerFrames: [Int]
    private var layerCounted: [Int]
    private(set) var devices: [BDAddr: ReportDevice] = [:]
    private(set) var devicesDropped = 0
    /// Advertising report events that carried several reports: each counted only its first
    /// report's device and RSSI.
    private(set) var multiReportEvents = 0
    /// The finished connections, in order of their numbers; past the limit they are counted.
    private(set) var connections: [ConnsRecord] = []
    private(set) var connectionsDropped = 0
    /// Connections whose series were dropped to stay within `pointBudget`.
    private(set) var seriesDropped = 0
    private var points = 0
    /// By connection number; nil for frames outside a connection.
    private(set) var problems: [Int?: ReportProblems] = [:]
    /// The most messages the sequence charts keep in all (rows and the members of folded runs).
    var messageBudget = 20_000
    private var messagesKept = 0
    /// Each connection's messages for its sequence chart, by connection number.
    private(set) var sequences: [Int: ReportSequence] = [:]
    private let messageFields: ReportMessageFields

    /// By field id (an array: this is read for every node of every frame): the layer's short
    /// name, nil for fields that are not protocol layers.
    private let layerNames: [String?]
    private let malformed: FieldID?
    private let devicesFields: DeviceNodeFields
    /// By field id: `rssiRole` for an advert's RSSI (HCI reports, sniffers), `advertRole` for
    /// the fields that say a frame is an advert, 0 for the rest.
    private let roles: [UInt8]
    private static let rssiRole: UInt8 = 1
    private static let advertRole: UInt8 = 2
    private static let reportCountRole: UInt8 = 3

    init(registry: DissectorRegistry) {
        var names = [String?](repeating: nil, count: registry.fields.count)
        // Derived layers (`device`) are added after dissection: not protocols of the frame.
        for (i, layer) in registry.isLayer.enumerated()
        where layer && i < registry.fields.count && !(i < registry.isDerived.count && registry.isDerived[i]) {
            let d = registry.fields[i]
            if d.abbrev != "frame" { names[i] = d.short.isEmpty ? d.abbrev : d.short }
        }
        layerNames = names
        layerFrames = [Int](repeating: 0, count: names.count)
        layerCounted = [Int](repeating: 0, count: names.count)
        malformed = registry.field(named: "_ws.malformed")
        devicesFields = DeviceNodeFields(registry)
        messageFields = ReportMessageFields(registry)
        var roles = [UInt8](repeating: 0, count: registry.fields.count)
        for (name, role) in [
            ("bthci_evt.rssi", Self.rssiRole), ("nordic_ble.rssi", Self.rssiRole),
            ("bthci_evt.le_meta_subevent", Self.advertRole), ("btle.advertising_header.pdu_type", Self.advertRole),
            ("bthci_evt.le_num_reports", Self.reportCountRole),
        ] {
            if let f = registry.field(named: name), Int(f.rawValue) < roles.count { roles[Int(f.rawValue)] = role }
        }
        self.roles = roles
    }

    private func role(_ field: Int) -> UInt8 { field < roles.count ? roles[field] : 0 }

    /// Takes a frame after the connections' builder has: `connection` is the record it went to.
    func add(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, connection: ConnsRecord?) {
        let moment = ConnsMoment(frame)
        if first == nil { first = moment }
        last = moment
        frames &+= 1
        TreeWalk.with(frame, tree) { walk in
            var broken = false
            var warned = false
            var rssi: Int64?
            var advert = false
            var severalReports = false
            for node in walk.nodes {
                let field = Int(node.field.rawValue)
                switch role(field) {
                case Self.rssiRole: if rssi == nil, case .signed(let v) = node.value, v != 127 { rssi = v }
                case Self.advertRole: advert = true
                case Self.reportCountRole: if case .unsigned(let n) = node.value, n > 1 { severalReports = true }
                default: break
                }
                if field < layerNames.count, layerNames[field] != nil, layerCounted[field] != frames {
                    layerCounted[field] = frames
                    layerFrames[field] &+= 1
                }
                if case .expert(let severity, _) = node.value {
                    if node.field == malformed { broken = true } else if severity >= .warning { warned = true }
                }
            }
            if broken || warned {
                // Problems of connections past the limit are counted with those outside any.
                let key = connection.map(\.number).flatMap {
                    problems[$0] != nil || problems.count < Self.connectionLimit ? $0 : nil
                }
                var p = problems[key] ?? ReportProblems()
                if broken { p.malformed &+= 1 }
                if warned { p.warnings &+= 1 }
                p.frames.append(frame.number)
                problems[key] = p
            }
            if severalReports { multiReportEvents &+= 1 }
            if let d = devicesFields.read(walk), let address = d.identity ?? d.address {
                device(address, d.name, moment, advert: advert && rssi != nil ? rssi : nil)
            }
            if let connection, let m = messageFields.read(walk, frame) {
                let sequence = sequences[connection.number] ?? ReportSequence()
                sequences[connection.number] = sequence
                messagesKept &+= sequence.add(m, budgetLeft: messagesKept < messageBudget)
            }
        }
    }

    /// `advert`: the RSSI of an advert the frame is.
    private func device(_ address: BDAddr, _ name: String?, _ moment: ConnsMoment, advert: Int64?) {
        guard
            var d = devices[address]
                ?? (devices.count < Self.deviceLimit ? ReportDevice(address: address, name: name, first: moment) : nil)
        else {
            devicesDropped &+= 1
            return
        }
        d.frames &+= 1
        if let name { d.name = name }
        if let advert, let time = moment.time { d.advert(time, rssi: advert) }
        devices[address] = d
    }

    /// Takes a finished connection (in any order: `sorted` puts them in order).
    func take(_ r: ConnsRecord) {
        guard connections.count < Self.connectionLimit else {
            connectionsDropped &+= 1
            sequences[r.number] = nil
            return
        }
        let kept =
            (r.latencyPoints?.items.count ?? 0)
            + r.channels.reduce(0) { $0 + $1.sides.reduce(0) { $0 + ($1.creditSteps?.points.count ?? 0) } }
        if points + kept > pointBudget {
            r.latencyPoints = nil
            for c in r.channels { for s in c.sides.indices { c.sides[s].creditSteps = nil } }
            seriesDropped &+= 1
        } else {
            points += kept
        }
        connections.append(r)
    }

    /// Frames holding each protocol layer, by its short name.
    var layers: [String: Int] {
        var out: [String: Int] = [:]
        for (field, count) in layerFrames.enumerated() where count > 0 {
            if let name = layerNames[field] { out[name, default: 0] &+= count }
        }
        return out
    }

    /// The connections in the order they began, as `conns` lists them.
    var sorted: [ConnsRecord] { connections.sorted { $0.number < $1.number } }
}
