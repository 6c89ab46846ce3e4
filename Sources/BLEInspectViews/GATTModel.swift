public import BLEInspectCore

/// One attribute of a rebuilt GATT database, with what the capture showed of it.
public struct GATTAttribute: Sendable {
    public enum Kind: String, Sendable {
        case primaryService = "primary_service"
        case secondaryService = "secondary_service"
        case include
        case characteristic
        case value
        case descriptor
        /// Used (read, written, notified) but never discovered: its role is not known.
        case unknown
    }

    /// How a value was last seen.
    public enum Via: String, Sendable {
        case read, write, notification, indication
    }

    public var handle: UInt16
    public var kind: Kind
    /// The attribute type: 0x2800…0x2803 for declarations, the characteristic's UUID for its
    /// value, the descriptor's type.
    public var type: BluetoothUUID?
    /// The service's UUID (service declarations), the characteristic's UUID (declarations and
    /// values), the included service's UUID (includes, when the declaration carries it).
    public var uuid: BluetoothUUID?
    /// Services: the last handle of the group.
    public var endHandle: UInt16?
    /// Characteristic declarations: properties and value handle.
    public var properties: UInt8?
    public var valueHandle: UInt16?
    /// Includes: the included service's handle range.
    public var includedStart: UInt16?
    public var includedEnd: UInt16?
    /// The frame whose discovery response showed this attribute; nil when it is only inferred.
    public var discoveredIn: Int?
    /// For an inferred attribute: the first frame that used it.
    public var firstUsedIn: Int?
    /// Set when a Service Changed indication covered the handle and no discovery has shown it
    /// again since: the frame of the indication.
    public var invalidatedIn: Int?

    /// The last value seen (at most `GATTModel.maximumValueLength` bytes), where and how.
    public var value: [UInt8]?
    public var valueFrame: Int = 0
    public var valueVia: Via = .read
    /// The value decoded by the characteristic's dissector, as `Name: value` labels.
    public var valueText: String?
    /// Whether `value` is the whole value (a Read Blob can leave it partial).
    public var valueComplete = true

    public var reads = 0
    public var writes = 0
    public var notifications = 0
    public var indications = 0
    /// Client Characteristic Configuration descriptors: the last value written and its frame.
    public var subscription: UInt16?
    public var subscriptionFrame: Int = 0

    public init(handle: UInt16, kind: Kind) {
        self.handle = handle
        self.kind = kind
    }

    public var isInferred: Bool { discoveredIn == nil }
    public var isService: Bool { kind == .primaryService || kind == .secondaryService }
}

/// Whose database a tree is: the peer's (the capture's host was the client) or the host's own
/// (the peer was the client), and which peer.
public struct GATTOwner: Hashable, Sendable, Comparable {
    public enum Peer: Hashable, Sendable, Comparable {
        case address(BDAddr)
        /// The peer's address was never seen: the capture began during the connection.
        case connection(UInt16)
    }

    public var peer: Peer
    /// The capturing host is the server.
    public var local: Bool

    public static func < (a: GATTOwner, b: GATTOwner) -> Bool {
        (a.peer, a.local ? 1 : 0) < (b.peer, b.local ? 1 : 0)
    }
}

/// A rebuilt database and what is known of the device that served or used it.
public final class GATTDevice {
    public let owner: GATTOwner
    public var addressType: UInt64?
    public var identityAddress: BDAddr?
    /// The address the peer used last (differs from the key when the key is its identity).
    public var lastAddress: BDAddr?
    public var name: String?
    /// The connection handles its ATT traffic came on.
    public var connectionHandles: [UInt16] = []
    public var firstFrame: Int
    public var lastFrame: Int
    /// Frames that started a discovery round: a Read By Group Type or Find By Type Value
    /// response, or a Read By Type request for characteristics, at the start of the handle space.
    public var discoveries: [Int] = []
    /// The first handle of the last service discovery response (see `GATTBuilder`).
    var lastServiceResponse: UInt16?
    /// Service Changed indications: frame and handle range.
    public var serviceChanges: [(frame: Int, start: UInt16, end: UInt16)] = []
    public private(set) var attributes: [UInt16: GATTAttribute] = [:]
    /// Set when the attribute limit dropped attributes.
    public var truncated = false

    init(owner: GATTOwner, frame: Int) {
        self.owner = owner
        firstFrame = frame
        lastFrame = frame
    }

    public subscript(handle: UInt16) -> GATTAttribute? { attributes[handle] }

    /// The attribute at `handle`, made (as `kind`) when new. Nil when the model is full.
    func attribute(_ handle: UInt16, kind: GATTAttribute.Kind, model: GATTModel) -> GATTAttribute? {
        if let a = attributes[handle] { return a }
        guard model.admitAttribute() else {
            truncated = true
            return nil
        }
        return GATTAttribute(handle: handle, kind: kind)
    }

    /// Changes the attribute at `handle` in place, making it as `kind` when new.
    func update(_ handle: UInt16, kind: GATTAttribute.Kind, model: GATTModel, _ change: (inout GATTAttribute) -> Void) {
        guard var a = attribute(handle, kind: kind, model: model) else { return }
        change(&a)
        attributes[handle] = a
    }

    /// Every attribute in handle order.
    public var sortedAttributes: [GATTAttribute] { attributes.values.sorted { $0.handle < $1.handle } }
}

/// Everything `gatt` rebuilt from a capture.
public final class GATTModel {
    public private(set) var devices: [GATTOwner: GATTDevice] = [:]
    /// Each peer's successful connections (handle, frame of the connection complete event), in
    /// order, at most 1,000 per peer and `maximumDevices` peers.
    public private(set) var connectionLog: [GATTOwner.Peer: [(handle: UInt16, frame: Int)]] = [:]
    /// Set when a limit dropped devices or attributes.
    public private(set) var limitReached = false
    private var attributeCount = 0

    /// The most attributes kept in all (about 200 bytes each), and the most devices.
    public static let maximumAttributes = 200_000
    public static let maximumDevices = 10_000
    /// The longest value kept: ATT values are at most 512 bytes.
    public static let maximumValueLength = 512
    /// The most connections listed per device.
    public static let maximumConnectionsPerDevice = 1000

    public init() {}

    func admitAttribute() -> Bool {
        guard attributeCount < Self.maximumAttributes else {
            limitReached = true
            return false
        }
        attributeCount += 1
        return true
    }

    func device(_ owner: GATTOwner, frame: Int) -> GATTDevice? {
        if let d = devices[owner] { return d }
        guard devices.count < Self.maximumDevices else {
            limitReached = true
            return nil
        }
        let d = GATTDevice(owner: owner, frame: frame)
        devices[owner] = d
        return d
    }

    func noteConnection(_ peer: GATTOwner.Peer, handle: UInt16, frame: Int) {
        if connectionLog[peer] == nil {
            guard connectionLog.count < Self.maximumDevices else {
                limitReached = true
                return
            }
            connectionLog[peer] = []
        }
        guard let n = connectionLog[peer]?.count else { return }
        if n < Self.maximumConnectionsPerDevice {
            connectionLog[peer]?.append((handle, frame))
        } else {
            limitReached = true
        }
    }

    /// A device's connections: those whose connection complete event was seen, with its frame,
    /// and the handles of any others its ATT traffic came on.
    public func connections(of device: GATTDevice) -> [(handle: UInt16, frame: Int?)] {
        let logged = connectionLog[device.owner.peer] ?? []
        var result: [(handle: UInt16, frame: Int?)] = logged.map { ($0.handle, $0.frame) }
        for h in device.connectionHandles where !logged.contains(where: { $0.handle == h }) { result.append((h, nil)) }
        return result
    }

    /// The devices, peers by address first, in address order.
    public var sortedDevices: [GATTDevice] { devices.values.sorted { $0.owner < $1.owner } }
}
