import BLEInspectCore

/// A device the report lists: an address seen in the `device` fields, its name and its frames.
struct ReportDevice {
    var address: BDAddr
    var name: String?
    var frames = 0
    var first: ConnsMoment
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
    /// Frames holding each protocol layer, by its short name (a frame counts once a layer).
    private(set) var layers: [String: Int] = [:]
    private(set) var devices: [BDAddr: ReportDevice] = [:]
    private(set) var devicesDropped = 0
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

    private let layerNames: [Int: String]
    private let malformed: FieldID?
    private let devicesFields: DeviceNodeFields

    init(registry: DissectorRegistry) {
        var names: [Int: String] = [:]
        // Derived layers (`device`) are added after dissection: not protocols of the frame.
        for (i, layer) in registry.isLayer.enumerated()
        where layer && i < registry.fields.count && !(i < registry.isDerived.count && registry.isDerived[i]) {
            let d = registry.fields[i]
            if d.abbrev != "frame" { names[i] = d.short.isEmpty ? d.abbrev : d.short }
        }
        layerNames = names
        malformed = registry.field(named: "_ws.malformed")
        devicesFields = DeviceNodeFields(registry)
        messageFields = ReportMessageFields(registry)
    }

    /// Takes a frame after the connections' builder has: `connection` is the record it went to.
    func add(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, connection: ConnsRecord?) {
        let moment = ConnsMoment(frame)
        if first == nil { first = moment }
        last = moment
        frames &+= 1
        TreeWalk.with(frame, tree) { walk in
            var seen: Set<Int> = []
            var broken = false
            var warned = false
            for node in walk.nodes {
                let field = Int(node.field.rawValue)
                if let name = layerNames[field], seen.insert(field).inserted { layers[name, default: 0] &+= 1 }
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
            if let d = devicesFields.read(walk), let address = d.identity ?? d.address {
                device(address, d.name, moment)
            }
            if let connection, let m = messageFields.read(walk, frame) {
                let sequence = sequences[connection.number] ?? ReportSequence()
                sequences[connection.number] = sequence
                messagesKept &+= sequence.add(m, budgetLeft: messagesKept < messageBudget)
            }
        }
    }

    private func device(_ address: BDAddr, _ name: String?, _ moment: ConnsMoment) {
        if var d = devices[address] {
            d.frames &+= 1
            if let name { d.name = name }
            devices[address] = d
        } else if devices.count < Self.deviceLimit {
            devices[address] = ReportDevice(address: address, name: name, frames: 1, first: moment)
        } else {
            devicesDropped &+= 1
        }
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
            + r.channels.reduce(0) { $0 + $1.sides.reduce(0) { $0 + ($1.creditSteps?.items.count ?? 0) } }
        if points + kept > pointBudget {
            r.latencyPoints = nil
            for c in r.channels { for s in c.sides.indices { c.sides[s].creditSteps = nil } }
            seriesDropped &+= 1
        } else {
            points += kept
        }
        connections.append(r)
    }

    /// The connections in the order they began, as `conns` lists them.
    var sorted: [ConnsRecord] { connections.sorted { $0.number < $1.number } }
}
