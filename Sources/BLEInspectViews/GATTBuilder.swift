public import BLEInspectCore
import BLEInspectRender

/// Rebuilds GATT databases from the ATT fields of dissected frames: discovery responses give
/// services, includes, characteristics and descriptors; reads, writes, notifications and
/// indications give values and counts. Everything comes from the fields, as `-T json` shows
/// them, not from the ATT dissector's own state.
public final class GATTBuilder {
    public let model = GATTModel()
    private let f: FieldLookup<Field>
    private let connections: ConnectionCompleteFields
    private let devices: DeviceNodeFields
    private let formatter: FieldFormatter
    /// The ATT opcodes' facts, declared by the ATT module: which side sends each PDU.
    private let attOpcodes: OpcodeFacts?

    /// The fields the builder reads; each case's raw value is the field's name.
    enum Field: String, CaseIterable {
        case att = "btatt", opcode = "btatt.opcode", handle = "btatt.handle", value = "btatt.value"
        case attributeData = "btatt.attribute_data", informationData = "btatt.information_data"
        case handlesInfo = "btatt.handles_info", groupEndHandle = "btatt.group_end_handle"
        case uuid16 = "btatt.uuid16", uuid128 = "btatt.uuid128", properties = "btatt.characteristic_properties"
        case valueHandle = "btatt.characteristic_value_handle", includedHandle = "gatt.included_service_handle"
        case endingHandle = "btatt.ending_handle", attributeType = "gatt.uuid", serviceUUID = "gatt.service_uuid"
        case offset = "btatt.offset", cccd = "btatt.characteristic_configuration_client"
        case chandle = "bthci_acl.chandle"
        /// Sniffed connections: the link layer's number for the connection, and the peripheral's
        /// address.
        case llConnection = "ll.connection", peripheral = "btle.slave_bd_addr"
    }

    public init(registry: DissectorRegistry) {
        f = FieldLookup(registry)
        connections = ConnectionCompleteFields(registry)
        devices = DeviceNodeFields(registry)
        formatter = FieldFormatter(registry: registry)
        attOpcodes = registry.opcodeFacts(StandardTables.attOpcode)
    }

    /// Field names the registry lacks (empty unless a dissector was renamed).
    public var missingFields: [String] { f.missing + connections.missing + devices.missing }

    /// Takes in one frame.
    public func add(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree) {
        TreeWalk.with(frame, tree) { walk in
            guard let layer = walk.first(f[.att]) else {
                noteConnection(frame, walk)
                return
            }
            let layerEnd = walk.end(of: layer)
            guard let opIndex = walk.first(f[.opcode], in: layer..<layerEnd), let op = walk.unsigned(opIndex) else {
                return
            }
            let opcode = UInt8(truncatingIfNeeded: op)
            guard let device = device(for: frame, opcode: opcode, walk) else { return }
            device.lastFrame = frame.number
            apply(opcode, layer..<layerEnd, walk, device, frame)
        }
    }

    /// An LE (Enhanced) Connection Complete that succeeded: the peer's connections are listed
    /// one by one, even when a reconnection gets the same handle.
    private func noteConnection(_ frame: CapturedFrame, _ walk: TreeWalk) {
        guard frame.kind == .hciEvent, connections.succeeded(walk), let d = devices.read(walk),
            let address = d.identity ?? d.address, let handle = d.connection
        else { return }
        model.noteConnection(.address(address), handle: handle, frame: frame.number)
    }

    // MARK: Whose database

    /// Whether the ATT table's row for `opcode` says the server sends it (responses,
    /// notifications and indications). An opcode without a row counts as the client's.
    private func sentByServer(_ opcode: UInt8) -> Bool {
        attOpcodes?[UInt16(opcode)]?.sender == .server
    }

    private func device(for frame: CapturedFrame, opcode: UInt8, _ walk: TreeWalk) -> GATTDevice? {
        // The server is whoever sent a server PDU, or the other side of a client PDU. "Sent"
        // frames go from the capturing host to its controller; in a sniffer's capture, from the
        // central, which stands in for the local side, and the peripheral is the peer.
        let fromHost = frame.direction == .hostToController
        let local = sentByServer(opcode) ? fromHost : (frame.direction == .controllerToHost)
        let d = devices.read(walk) ?? DeviceNode()
        let address = d.address ?? walk.first(f[.peripheral]).flatMap(walk.address)
        let (identity, addressType, name) = (d.identity, d.addressType, d.name)
        let connection =
            walk.first(f[.chandle]).flatMap(walk.uint16) ?? walk.first(f[.llConnection]).flatMap(walk.uint16)
        let peer: GATTOwner.Peer
        if let key = identity ?? address {
            peer = .address(key)
        } else if let connection {
            peer = .connection(connection)
        } else {
            return nil
        }
        guard let device = model.device(GATTOwner(peer: peer, local: local), frame: frame.number) else { return nil }
        if let addressType { device.addressType = addressType }
        if let identity { device.identityAddress = identity }
        if let address { device.lastAddress = address }
        if let name { device.name = name }
        if let connection, !device.connectionHandles.contains(connection), device.connectionHandles.count < 64 {
            device.connectionHandles.append(connection)
        }
        return device
    }

    // MARK: PDUs

    private func apply(
        _ opcode: UInt8,
        _ layer: Range<Int>,
        _ walk: TreeWalk,
        _ device: GATTDevice,
        _ frame: CapturedFrame
    ) {
        let n = frame.number
        switch opcode {
        case 0x11:  // Read By Group Type Response: services
            noteDiscovery(device, n, walk, layer)
            for item in walk.all(f[.attributeData], in: layer) { service(item, walk, device, n) }
        case 0x07:  // Find By Type Value Response: services found by UUID
            noteDiscovery(device, n, walk, layer)
            for item in walk.all(f[.handlesInfo], in: layer) { service(item, walk, device, n) }
        case 0x09:  // Read By Type Response: characteristics, includes, or values read by type
            for item in walk.all(f[.attributeData], in: layer) { readByTypeItem(item, walk, device, n) }
        case 0x05:  // Find Information Response: descriptors (and any other attribute types)
            for item in walk.all(f[.informationData], in: layer) { foundAttribute(item, walk, device, n) }
        case 0x0B, 0x0D:  // Read Response, Read Blob Response
            valuePDU(layer, walk, device, frame, via: .read)
        case 0x12, 0x52, 0xD2:  // Write Request, Write Command, Signed Write Command
            valuePDU(layer, walk, device, frame, via: .write)
        case 0x1B:
            valuePDU(layer, walk, device, frame, via: .notification)
        case 0x1D:
            valuePDU(layer, walk, device, frame, via: .indication)
        default:
            break
        }
    }

    /// A discovery round starts with a service response whose first handle is not above the
    /// first handle of the previous one: service discovery walks the handles upwards.
    private func noteDiscovery(_ device: GATTDevice, _ frame: Int, _ walk: TreeWalk, _ layer: Range<Int>) {
        guard let first = walk.first(f[.handle], in: layer).flatMap(walk.unsigned) else { return }
        let h = UInt16(truncatingIfNeeded: first)
        if let previous = device.lastServiceResponse, h > previous {
            device.lastServiceResponse = h
            return
        }
        device.lastServiceResponse = h
        if device.discoveries.count < 1000 { device.discoveries.append(frame) }
    }

    /// The UUID the item carries (`btatt.uuid16` or `btatt.uuid128`), outside nested handles.
    private func itemUUID(_ range: Range<Int>, _ walk: TreeWalk) -> BluetoothUUID? {
        let depth = walk.nodes[range.lowerBound].depth + 1
        for i in range where walk.nodes[i].depth == depth {
            let field = walk.nodes[i].field
            if field == f[.uuid16] || field == f[.uuid128] { return walk.uuid(i) }
        }
        return nil
    }

    private func service(_ item: Int, _ walk: TreeWalk, _ device: GATTDevice, _ frame: Int) {
        let range = item..<walk.end(of: item)
        guard let h = walk.first(f[.handle], in: range),
            let handle = walk.uint16(h)
        else { return }
        let end = walk.first(f[.groupEndHandle], in: range).flatMap(walk.uint16)
        // The attribute type the ATT dissector learned from the request (0x2800 or 0x2801).
        let type = walk.first(f[.attributeType], in: h..<walk.end(of: h)).flatMap(walk.uuid)
        let secondary = type == BluetoothUUID(uuid16: 0x2801)
        // Find By Type Value responses carry no UUID: the dissector puts the request's on the
        // handle as the service UUID annotation.
        let uuid = itemUUID(range, walk) ?? walk.first(f[.serviceUUID], in: h..<walk.end(of: h)).flatMap(walk.uuid)
        let kind: GATTAttribute.Kind = secondary ? .secondaryService : .primaryService
        discovered(handle, as: kind, type: BluetoothUUID(uuid16: secondary ? 0x2801 : 0x2800), in: frame, device) { a in
            if let uuid { a.uuid = uuid }
            if let end { a.endHandle = end }
        }
    }

    private func readByTypeItem(_ item: Int, _ walk: TreeWalk, _ device: GATTDevice, _ frame: Int) {
        let range = item..<walk.end(of: item)
        guard let h = walk.first(f[.handle], in: range),
            let handle = walk.uint16(h)
        else { return }
        if let p = walk.first(f[.properties], in: range) {
            // A characteristic declaration.
            let properties = walk.unsigned(p).map { UInt8(truncatingIfNeeded: $0) }
            let valueHandle = walk.first(f[.valueHandle], in: range).flatMap(walk.uint16)
            let uuid = itemUUID(range, walk)
            discovered(handle, as: .characteristic, type: BluetoothUUID(uuid16: 0x2803), in: frame, device) { a in
                a.uuid = uuid
                a.properties = properties
                a.valueHandle = valueHandle
            }
            if let valueHandle {
                discovered(valueHandle, as: .value, type: uuid, in: frame, device) { $0.uuid = uuid }
            }
        } else if let inc = walk.first(f[.includedHandle], in: range) {
            let start = walk.uint16(inc)
            let end = walk.first(f[.endingHandle], in: range).flatMap(walk.uint16)
            let uuid = itemUUID(range, walk)
            discovered(handle, as: .include, type: BluetoothUUID(uuid16: 0x2802), in: frame, device) { a in
                a.includedStart = start
                a.includedEnd = end
                if let uuid { a.uuid = uuid }
            }
            // The include shows the included service's declaration: a service that primary
            // service discovery did not list is a secondary one.
            if let start, device[start]?.isService != true {
                discovered(start, as: .secondaryService, type: BluetoothUUID(uuid16: 0x2801), in: frame, device) { a in
                    a.uuid = uuid
                    a.endHandle = end
                }
            }
        } else if let v = walk.first(f[.value], in: range) {
            // A value read by type (Read Using Characteristic UUID).
            recordValue(handle, v, walk, device, frame, via: .read, offset: 0)
        }
    }

    private func foundAttribute(_ item: Int, _ walk: TreeWalk, _ device: GATTDevice, _ frame: Int) {
        let range = item..<walk.end(of: item)
        guard let handle = walk.first(f[.handle], in: range).flatMap(walk.uint16),
            let type = itemUUID(range, walk)
        else { return }
        switch type.uuid16 {
        case 0x2800, 0x2801, 0x2802, 0x2803:
            // Declarations found by Find Information: their details come from the other
            // discovery procedures; only the type is known here.
            if device[handle] == nil {
                let kind: GATTAttribute.Kind =
                    switch type.uuid16 {
                    case 0x2800: .primaryService
                    case 0x2801: .secondaryService
                    case 0x2802: .include
                    default: .characteristic
                    }
                discovered(handle, as: kind, type: type, in: frame, device)
            }
        default:
            // A characteristic value already known keeps its role; anything else is a
            // descriptor.
            if let known = device[handle], known.kind == .value, known.type == type { return }
            discovered(handle, as: .descriptor, type: type, in: frame, device) { $0.uuid = type }
        }
    }

    /// Reads, writes, notifications, indications: one handle, one value.
    private func valuePDU(
        _ layer: Range<Int>,
        _ walk: TreeWalk,
        _ device: GATTDevice,
        _ frame: CapturedFrame,
        via: GATTAttribute.Via
    ) {
        guard let h = walk.first(f[.handle], in: layer),
            let handle = walk.uint16(h)
        else { return }
        let offset = walk.first(f[.offset], in: layer).flatMap(walk.unsigned).map { Int($0) } ?? 0
        if let v = walk.first(f[.value], in: layer) {
            recordValue(handle, v, walk, device, frame.number, via: via, offset: offset)
        } else {
            // An empty value: a zero-length read or write.
            device.update(handle, kind: .unknown, model: model) { a in
                count(&a, via, frame.number)
                a.value = []
                a.valueFrame = frame.number
                a.valueVia = via
                a.valueText = nil
            }
        }
    }

    private func count(_ a: inout GATTAttribute, _ via: GATTAttribute.Via, _ frame: Int) {
        switch via {
        case .read: a.reads += 1
        case .write: a.writes += 1
        case .notification: a.notifications += 1
        case .indication: a.indications += 1
        }
        if a.isInferred && a.firstUsedIn == nil { a.firstUsedIn = frame }
    }

    private func recordValue(
        _ handle: UInt16,
        _ v: Int,
        _ walk: TreeWalk,
        _ device: GATTDevice,
        _ frame: Int,
        via: GATTAttribute.Via,
        offset: Int
    ) {
        let bytes = walk.bytes(v)
        let text = decodedText(v, walk)
        // The ATT dissector decodes a CCCD's value when it knows the handle is one.
        let decodedAsCCCD = walk.first(f[.cccd], in: v..<walk.end(of: v)) != nil
        device.update(handle, kind: .unknown, model: model) { a in
            // A Read Blob continues the value at its offset; anything else replaces it.
            if via == .read && offset > 0 {
                var whole = a.value ?? []
                if offset <= whole.count {
                    whole.removeSubrange(offset...)
                    whole.append(contentsOf: bytes.prefix(max(0, GATTModel.maximumValueLength - whole.count)))
                    a.value = whole
                    a.valueComplete = a.valueComplete && whole.count < GATTModel.maximumValueLength
                } else {
                    a.valueComplete = false
                }
                a.valueText = nil
            } else {
                count(&a, via, frame)
                a.value = Array(bytes.prefix(GATTModel.maximumValueLength))
                a.valueComplete = bytes.count <= GATTModel.maximumValueLength
                a.valueText = text
            }
            a.valueFrame = frame
            a.valueVia = via
            if a.type?.uuid16 == 0x2902 || decodedAsCCCD, via == .write, bytes.count >= 2 {
                a.subscription = UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
                a.subscriptionFrame = frame
            }
        }
        if via == .indication, let a = device[handle], a.type?.uuid16 == 0x2A05, bytes.count == 4 {
            serviceChanged(device, frame, bytes)
        }
    }

    /// A Service Changed indication: what was discovered in its range is no longer trusted
    /// until a discovery shows it again.
    /// Records that discovery in `frame` showed the attribute at `handle` as `kind` of `type`;
    /// `details` adds what the response said of it.
    private func discovered(
        _ handle: UInt16,
        as kind: GATTAttribute.Kind,
        type: BluetoothUUID?,
        in frame: Int,
        _ device: GATTDevice,
        _ details: (inout GATTAttribute) -> Void = { _ in }
    ) {
        device.update(handle, kind: kind, model: model) { a in
            a.kind = kind
            a.type = type
            a.discoveredIn = frame
            a.invalidatedIn = nil
            details(&a)
        }
    }

    private func serviceChanged(_ device: GATTDevice, _ frame: Int, _ bytes: ArraySlice<UInt8>) {
        let b = Array(bytes)
        let start = UInt16(b[0]) | UInt16(b[1]) << 8
        let end = UInt16(b[2]) | UInt16(b[3]) << 8
        if device.serviceChanges.count < 1000 { device.serviceChanges.append((frame, start, end)) }
        // The discovery of the changed range that follows is a round of its own.
        device.lastServiceResponse = nil
        guard start <= end else { return }
        for a in device.sortedAttributes where a.handle >= start && a.handle <= end && a.discoveredIn != nil {
            device.update(a.handle, kind: a.kind, model: model) { $0.invalidatedIn = frame }
        }
    }

    /// The value as its characteristic's dissector decoded it: the labels of the value node's
    /// children, or nil when nothing decoded it.
    private func decodedText(_ v: Int, _ walk: TreeWalk) -> String? {
        let children = walk.children(of: v)
        guard !children.isEmpty else { return nil }
        var parts: [String] = []
        for c in children.prefix(16) {
            let node = walk.nodes[c]
            let d = formatter.registry.descriptor(node.field)
            parts.append(formatter.label(node, d, texts: walk.texts) { walk.bytes(c) })
        }
        return parts.joined(separator: ", ")
    }
}
