public import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import BLEInspectSession

/// A device's database arranged for output: services with their includes and characteristics,
/// characteristics with their value and descriptors, and the attributes that fit nowhere.
public struct GATTLayout {
    public struct Characteristic {
        /// Nil when only the value was seen (an inferred characteristic).
        public var declaration: GATTAttribute?
        public var value: GATTAttribute?
        public var descriptors: [GATTAttribute] = []
    }

    public struct Service {
        public var declaration: GATTAttribute
        /// The last handle of the service: its group end, else the handle before the next one.
        public var end: UInt16
        public var includes: [GATTAttribute] = []
        public var characteristics: [Characteristic] = []
    }

    public var services: [Service] = []
    /// Attributes outside every known service, and those whose role is not known.
    public var other: [GATTAttribute] = []

    public init(_ device: GATTDevice) {
        let attributes = device.sortedAttributes
        let declarations = attributes.filter(\.isService)
        for (k, d) in declarations.enumerated() {
            var end = d.endHandle ?? UInt16.max
            if k + 1 < declarations.count, end >= declarations[k + 1].handle {
                end = declarations[k + 1].handle &- 1
            }
            services.append(Service(declaration: d, end: max(end, d.handle)))
        }
        var s = 0
        for a in attributes where !a.isService {
            while s < services.count && services[s].end < a.handle { s += 1 }
            guard s < services.count, services[s].declaration.handle < a.handle else {
                other.append(a)
                continue
            }
            var service = services[s]
            Self.place(a, in: &service, other: &other)
            services[s] = service
        }
    }

    private static func place(_ a: GATTAttribute, in service: inout Service, other: inout [GATTAttribute]) {
        switch a.kind {
        case .include:
            service.includes.append(a)
        case .characteristic:
            service.characteristics.append(Characteristic(declaration: a))
        case .value:
            if let last = service.characteristics.indices.last,
                service.characteristics[last].value == nil,
                service.characteristics[last].declaration?.valueHandle == a.handle
            {
                service.characteristics[last].value = a
            } else {
                service.characteristics.append(Characteristic(declaration: nil, value: a))
            }
        case .descriptor, .unknown:
            if let last = service.characteristics.indices.last {
                service.characteristics[last].descriptors.append(a)
            } else {
                other.append(a)
            }
        case .primaryService, .secondaryService:
            other.append(a)
        }
    }
}

/// `gatt`'s output: a text tree for people and a JSON document (schema `bleinspect.gatt/1`,
/// documented in docs/VIEWS.md).
public struct GATTReport {
    public static let schema = "bleinspect.gatt/1"

    /// How UUIDs are named: as the session's registry names them.
    public let uuids: UUIDText

    public init(uuids: UUIDText) { self.uuids = uuids }

    static let propertyNames: [(UInt8, String)] = [
        (0x01, "broadcast"), (0x02, "read"), (0x04, "write_without_response"), (0x08, "write"),
        (0x10, "notify"), (0x20, "indicate"), (0x40, "authenticated_signed_writes"), (0x80, "extended_properties"),
    ]

    static func properties(_ p: UInt8) -> [String] { propertyNames.filter { p & $0.0 != 0 }.map(\.1) }

    // MARK: Text

    public func text(_ model: GATTModel) -> String {
        var out = ""
        let devices = model.sortedDevices
        if devices.isEmpty {
            out += "No GATT traffic (no ATT discovery, reads, writes or notifications) in the frames read.\n"
        }
        for (k, device) in devices.enumerated() {
            if k > 0 { out += "\n" }
            out += heading(device, connections: model.connections(of: device))
            let layout = GATTLayout(device)
            for service in layout.services { out += serviceText(service) }
            if !layout.other.isEmpty {
                out += "  Attributes outside the discovered services:\n"
                for a in layout.other { out += attributeLine(a, indent: 4) }
            }
        }
        if model.limitReached {
            out += "\nNote: the attribute, device or connection-list limit was reached; later ones are not shown.\n"
        }
        return out
    }

    func peerText(_ device: GATTDevice) -> String {
        switch device.owner.peer {
        case .address(let a):
            var s = ViewText.address(a, upperCase: true)
            switch device.addressType {
            case 0: s += " (public)"
            case 1: s += " (random)"
            default: break
            }
            if let name = device.name { s += " \"" + TerminalSafeText.escape(name) + "\"" }
            if let last = device.lastAddress, last != a {
                s += ", last seen as " + ViewText.address(last, upperCase: true)
            }
            return s
        case .connection(let c):
            return "peer on connection " + ViewText.handle(c) + " (address not in the capture)"
        }
    }

    func heading(_ device: GATTDevice, connections: [(handle: UInt16, frame: Int?)]) -> String {
        ([title(device)] + facts(device, connections: connections).map { "  " + $0 }).map { $0 + "\n" }.joined()
    }

    /// `Device EA:76:52:B8:3B:E4 (random) "SM-3BE4"`, or whose database the host's is.
    func title(_ device: GATTDevice) -> String {
        (device.owner.local ? "This host's database, as used by " : "Device ") + peerText(device)
    }

    /// The lines under a device's title: its connections, frames and discoveries, and the
    /// Service Changed indications.
    func facts(_ device: GATTDevice, connections: [(handle: UInt16, frame: Int?)]) -> [String] {
        var facts: [String] = []
        if !connections.isEmpty {
            // A long capture can hold thousands of reconnections: the first few, then a count.
            let shown = connections.prefix(6).map { c in ViewText.handle(c.handle) + (c.frame.map { " (#\($0))" } ?? "")
            }
            var text = (connections.count == 1 ? "connection " : "connections ") + shown.joined(separator: ", ")
            if connections.count > shown.count { text += " and \(connections.count - shown.count) more" }
            facts.append(text)
        }
        facts.append("frames \(device.firstFrame)–\(device.lastFrame)")
        switch device.discoveries.count {
        case 0: facts.append("no service discovery seen")
        case 1: facts.append("service discovery in #\(device.discoveries[0])")
        default:
            facts.append(
                "\(device.discoveries.count) service discoveries, in "
                    + device.discoveries.prefix(8).map { "#\($0)" }.joined(separator: ", ")
            )
        }
        return [facts.joined(separator: "; ")]
            + device.serviceChanges.prefix(16).map { change in
                "Service Changed in #\(change.frame): handles \(ViewText.handle(change.start))–\(ViewText.handle(change.end))"
            }
    }

    func marks(_ a: GATTAttribute) -> String {
        var s = ""
        if a.isInferred {
            s += "  [inferred: used"
            if let f = a.firstUsedIn { s += " in #\(f)" }
            s += ", never discovered]"
        }
        if let f = a.invalidatedIn { s += "  [invalidated by Service Changed in #\(f)]" }
        return s
    }

    func serviceText(_ service: GATTLayout.Service) -> String {
        var s = "  " + serviceLine(service) + "\n"
        for inc in service.includes { s += "    " + includeLine(inc) + "\n" }
        for c in service.characteristics { s += characteristicText(c) }
        return s
    }

    /// `0x0001–0x0007  Primary Service 0x1800 Generic Access`.
    func serviceLine(_ service: GATTLayout.Service) -> String {
        let d = service.declaration
        var s = ViewText.handle(d.handle) + "–" + ViewText.handle(d.endHandle ?? service.end) + "  "
        s += d.kind == .secondaryService ? "Secondary Service " : "Primary Service "
        s += d.uuid.map(uuids.withName) ?? "(UUID not seen)"
        return s + marks(d)
    }

    func includeLine(_ inc: GATTAttribute) -> String {
        var s = ViewText.handle(inc.handle) + "  Include "
        if let start = inc.includedStart {
            s += ViewText.handle(start) + "–" + (inc.includedEnd.map(ViewText.handle) ?? "?")
        }
        if let u = inc.uuid { s += " " + uuids.withName(u) }
        return s + marks(inc)
    }

    func characteristicText(_ c: GATTLayout.Characteristic) -> String {
        var s = characteristicLine(c).map { "    " + $0 + "\n" } ?? ""
        if let v = c.value { s += attributeLine(v, indent: 6, label: "Value") }
        for d in c.descriptors { s += attributeLine(d, indent: 6) }
        return s
    }

    /// The characteristic's own line: its declaration, or its UUID when only the value was seen.
    func characteristicLine(_ c: GATTLayout.Characteristic) -> String? {
        if let d = c.declaration {
            var s = ViewText.handle(d.handle) + "  Characteristic "
            s += d.uuid.map(uuids.withName) ?? "(UUID not seen)"
            if let p = d.properties { s += "  [" + Self.properties(p).joined(separator: ", ") + "]" }
            return s + marks(d)
        }
        return c.value.map { v in "Characteristic " + (v.uuid.map(uuids.withName) ?? "(declaration not seen)") }
    }

    func attributeLine(_ a: GATTAttribute, indent: Int, label: String? = nil) -> String {
        var s = String(repeating: " ", count: indent) + ViewText.handle(a.handle) + "  "
        if let label {
            s += label
        } else {
            switch a.kind {
            case .descriptor: s += "Descriptor " + (a.type.map(uuids.withName) ?? "")
            case .value: s += "Value " + (a.type.map(uuids.withName) ?? "")
            case .unknown: s += "Attribute"
            case .characteristic: s += "Characteristic " + (a.uuid.map(uuids.withName) ?? "")
            case .primaryService, .secondaryService, .include:
                s += a.kind.rawValue + " " + (a.uuid.map(uuids.withName) ?? "")
            }
        }
        if let value = a.value {
            s += ": " + (a.valueText ?? ViewText.value(value))
            if !a.valueComplete { s += " (partial)" }
            s += " (\(a.valueVia.rawValue) in #\(a.valueFrame))"
        }
        if let sub = a.subscription {
            var on: [String] = []
            if sub & 1 != 0 { on.append("notifications") }
            if sub & 2 != 0 { on.append("indications") }
            s += "  subscribed: " + (on.isEmpty ? "off" : on.joined(separator: " and ")) + " (#\(a.subscriptionFrame))"
        }
        var counts: [String] = []
        if a.reads > 0 { counts.append("reads \(a.reads)") }
        if a.writes > 0 { counts.append("writes \(a.writes)") }
        if a.notifications > 0 { counts.append("notifications \(a.notifications)") }
        if a.indications > 0 { counts.append("indications \(a.indications)") }
        if !counts.isEmpty { s += "  " + counts.joined(separator: ", ") }
        return s + marks(a) + "\n"
    }

    // MARK: JSON

    public func json(_ model: GATTModel) -> JSONValue {
        .object([
            ("schema", .string(Self.schema)),
            ("devices", .array(model.sortedDevices.map { deviceJSON($0, connections: model.connections(of: $0)) })),
            ("limit_reached", .bool(model.limitReached)),
        ])
    }

    func uuidJSON(_ u: BluetoothUUID?) -> JSONValue {
        u.map { .string(ViewText.uuid($0, upperCase: false)) } ?? .null
    }

    func nameJSON(_ u: BluetoothUUID?) -> JSONValue { .optional(u.flatMap(uuids.name)) }

    func deviceJSON(_ device: GATTDevice, connections: [(handle: UInt16, frame: Int?)]) -> JSONValue {
        var peer: [(String, JSONValue)] = []
        switch device.owner.peer {
        case .address(let a):
            peer.append(("address", .string(ViewText.address(a, upperCase: false))))
            peer.append(("address_type", .optional(device.addressType)))
            peer.append(
                (
                    "identity_address",
                    device.identityAddress.map { .string(ViewText.address($0, upperCase: false)) } ?? .null
                )
            )
            peer.append(
                ("last_address", device.lastAddress.map { .string(ViewText.address($0, upperCase: false)) } ?? .null)
            )
            peer.append(("name", .optional(device.name)))
        case .connection(let c):
            peer.append(("address", .null))
            peer.append(("connection", .int(c)))
        }
        let layout = GATTLayout(device)
        return .object([
            ("peer", .object(peer)),
            ("server", .string(device.owner.local ? "local" : "peer")),
            (
                "connections",
                .array(connections.map { .object([("handle", .int($0.handle)), ("frame", .optional($0.frame))]) })
            ),
            ("first_frame", .int(device.firstFrame)),
            ("last_frame", .int(device.lastFrame)),
            ("discoveries", .array(device.discoveries.map { .int($0) })),
            (
                "service_changes",
                .array(
                    device.serviceChanges.map {
                        .object([
                            ("frame", .int($0.frame)), ("start_handle", .int($0.start)), ("end_handle", .int($0.end)),
                        ])
                    }
                )
            ),
            ("services", .array(layout.services.map(serviceJSON))),
            ("other_attributes", .array(layout.other.map { attributeJSON($0) })),
            ("truncated", .bool(device.truncated)),
        ])
    }

    func common(_ a: GATTAttribute) -> [(String, JSONValue)] {
        [
            ("discovered_in", .optional(a.discoveredIn)),
            ("inferred", .bool(a.isInferred)),
            ("first_used_in", .optional(a.firstUsedIn)),
            ("invalidated_in", .optional(a.invalidatedIn)),
        ]
    }

    func serviceJSON(_ s: GATTLayout.Service) -> JSONValue {
        let d = s.declaration
        var members: [(String, JSONValue)] = [
            ("handle", .int(d.handle)),
            // As the server reported it; `s.end` is clipped where ranges overlap.
            ("end_handle", .int(d.endHandle ?? s.end)),
            ("primary", .bool(d.kind == .primaryService)),
            ("uuid", uuidJSON(d.uuid)),
            ("name", nameJSON(d.uuid)),
        ]
        members += common(d)
        members.append(
            (
                "includes",
                .array(
                    s.includes.map { inc in
                        .object(
                            [
                                ("handle", .int(inc.handle)),
                                ("start_handle", .optional(inc.includedStart)),
                                ("end_handle", .optional(inc.includedEnd)),
                                ("uuid", uuidJSON(inc.uuid)),
                                ("name", nameJSON(inc.uuid)),
                            ] + common(inc)
                        )
                    }
                )
            )
        )
        members.append(("characteristics", .array(s.characteristics.map(characteristicJSON))))
        return .object(members)
    }

    func characteristicJSON(_ c: GATTLayout.Characteristic) -> JSONValue {
        let d = c.declaration
        let uuid = d?.uuid ?? c.value?.uuid
        var members: [(String, JSONValue)] = [
            ("handle", .optional(d?.handle)),
            ("value_handle", .optional(d?.valueHandle ?? c.value?.handle)),
            ("uuid", uuidJSON(uuid)),
            ("name", nameJSON(uuid)),
            ("properties", .optional(d?.properties)),
            ("property_names", .array((d?.properties).map(Self.properties)?.map { .string($0) } ?? [])),
        ]
        members += d.map(common) ?? [("discovered_in", .null), ("inferred", .bool(true))]
        members.append(("value", c.value.map { attributeJSON($0) } ?? .null))
        members.append(("descriptors", .array(c.descriptors.map { attributeJSON($0) })))
        return .object(members)
    }

    func attributeJSON(_ a: GATTAttribute) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("handle", .int(a.handle)),
            ("kind", .string(a.kind.rawValue)),
            ("type", uuidJSON(a.type)),
            ("name", nameJSON(a.type)),
        ]
        // Declarations outside every known service keep their details here.
        switch a.kind {
        case .characteristic:
            members += [
                ("uuid", uuidJSON(a.uuid)), ("properties", .optional(a.properties)),
                ("value_handle", .optional(a.valueHandle)),
            ]
        case .primaryService, .secondaryService:
            members += [("uuid", uuidJSON(a.uuid)), ("end_handle", .optional(a.endHandle))]
        case .include:
            members += [
                ("uuid", uuidJSON(a.uuid)), ("start_handle", .optional(a.includedStart)),
                ("end_handle", .optional(a.includedEnd)),
            ]
        case .value, .descriptor, .unknown:
            break
        }
        members += common(a)
        if let v = a.value {
            members.append(
                (
                    "last_value",
                    .object([
                        ("hex", .string(Hex.string(v))),
                        ("text", .optional(a.valueText)),
                        ("complete", .bool(a.valueComplete)),
                        ("frame", .int(a.valueFrame)),
                        ("via", .string(a.valueVia.rawValue)),
                    ])
                )
            )
        } else {
            members.append(("last_value", .null))
        }
        members += [
            ("reads", .int(a.reads)), ("writes", .int(a.writes)),
            ("notifications", .int(a.notifications)), ("indications", .int(a.indications)),
        ]
        if let sub = a.subscription {
            members.append(
                (
                    "subscription",
                    .object([
                        ("value", .int(sub)), ("notify", .bool(sub & 1 != 0)), ("indicate", .bool(sub & 2 != 0)),
                        ("frame", .int(a.subscriptionFrame)),
                    ])
                )
            )
        }
        return .object(members)
    }
}

/// `bleinspect gatt`: reads the captures and prints the rebuilt databases.
public enum GATTCommandRunner {
    public static func run(
        scan: CaptureScan,
        json: Bool,
        output: OutputSink,
        errorOutput: (String) -> Void
    ) -> ExitStatus {
        var built: GATTBuilder? = nil
        var names: [BluetoothUUID: String] = [:]
        let status = scan.runView("gatt", errorOutput: errorOutput) { registry in
            let builder = GATTBuilder(registry: registry)
            built = builder
            names = registry.uuidNames
            return .success(.init(missing: builder.missingFields, take: { builder.add($0, $1) }))
        }
        guard let builder = built, status != .software else { return status }
        let report = GATTReport(uuids: UUIDText(names: names))
        output.append(json ? report.json(builder.model).text : report.text(builder.model))
        output.flush()
        if output.failure != nil { return .cannotCreateOutput }
        return status
    }
}
