import BLEInspectCore

/// One ATT bearer: the unenhanced bearer (fixed channel 4) of a connection, or its enhanced
/// bearers (EATT, PSM 0x0027) taken together.
///
/// EATT channels are not told apart: an SDU's L2CAP channel id differs in the two directions
/// (each side's own CID), so requests and responses could not be paired per channel from what the
/// L2CAP layer passes up. All EATT channels of a connection share one bearer here; responses are
/// matched to the oldest pending request of the right opcode in the other direction, which is
/// exact while each channel has at most one request outstanding of each kind.
struct BearerKey: Hashable {
    let connection: ConnectionKey
    let enhanced: Bool
}

/// A request (or indication) waiting for its response (or confirmation).
struct PendingRequest {
    var opcode: UInt8
    var frame: Int
    var timestamp: Timestamp
    var direction: Direction
    /// The handle (Read, Read Blob, Write, Prepare Write, Indication) or the starting handle.
    var handle: UInt16 = 0
    var endHandle: UInt16 = 0
    var offset: UInt16 = 0
    /// The attribute type of Find By Type Value, Read By Type and Read By Group Type.
    var type: BluetoothUUID? = nil
    /// The value of Find By Type Value when it is a UUID (service discovery by UUID).
    var valueUUID: BluetoothUUID? = nil
    /// The handles of Read Multiple and Read Multiple Variable (at most `maximumHandles`).
    var handles: [UInt16] = []
    /// The client's Rx MTU of Exchange MTU.
    var mtu: UInt16 = 0

    static let maximumHandles = 64
}

/// An ATT bearer's state: its MTU and the requests waiting for an answer.
final class ATTBearer {
    /// ATT_MTU: 23 until an Exchange MTU completes.
    var mtu: UInt16 = 23
    var mtuExchanged = false
    /// Pending requests, oldest first.
    private(set) var pending: [PendingRequest] = []

    /// The most requests remembered per bearer; ATT allows one outstanding request per direction,
    /// so more than a few means responses are missing from the capture.
    static let maximumPending = 16

    init() { pending.reserveCapacity(4) }

    /// Remembers `request`; returns the one it displaced when the list was full.
    func add(_ request: PendingRequest) -> PendingRequest? {
        var dropped: PendingRequest? = nil
        if pending.count >= Self.maximumPending { dropped = pending.removeFirst() }
        pending.append(request)
        return dropped
    }

    /// The newest pending request of the same kind as `request` (a request, or an indication)
    /// sent the same way.
    func outstanding(like request: PendingRequest) -> PendingRequest? {
        let indication = request.opcode == 0x1D
        return pending.last { ($0.opcode == 0x1D) == indication && $0.direction == request.direction }
    }

    /// Forgets `request` (matched by frame, opcode and direction).
    func remove(_ request: PendingRequest) {
        pending.removeAll {
            $0.frame == request.frame && $0.opcode == request.opcode && $0.direction == request.direction
        }
    }

    /// Takes the oldest pending request with `opcode` sent the other way from `direction`.
    func take(requestOpcode opcode: UInt8, answeredFrom direction: Direction) -> PendingRequest? {
        for i in pending.indices {
            let p = pending[i]
            guard p.opcode == opcode else { continue }
            if p.direction == .unknown || direction == .unknown || p.direction != direction {
                return pending.remove(at: i)
            }
        }
        return nil
    }
}

/// What is known of one attribute, learned from GATT discovery.
struct AttributeInfo {
    enum Kind: UInt8 {
        case primaryService, secondaryService, include, characteristicDeclaration, characteristicValue, descriptor
        /// Seen in a Find Information response, role not known.
        case attribute
    }

    var kind: Kind
    /// The attribute type: the characteristic UUID for a value, the descriptor UUID for a
    /// descriptor, 0x2800/0x2801/0x2802/0x2803 for declarations.
    var uuid: BluetoothUUID
    /// For declarations and descriptors: the characteristic (or, for a service declaration, the
    /// service) the attribute is about.
    var about: BluetoothUUID?
    /// The SIG name of `uuid`, looked up once when learned (or a plugin's name for it).
    var name: String?
    /// A plugin's name for `about`, if it has one.
    var aboutName: String?

    init(_ kind: Kind, _ uuid: BluetoothUUID, about: BluetoothUUID? = nil) {
        self.kind = kind
        self.uuid = uuid
        self.about = about
        self.name = GATTNames.name(uuid)
    }

    /// The text summaries show for the handle: "Battery Level", "Battery Level: Client
    /// Characteristic Configuration", "Primary Service: Battery". Made only when a summary is
    /// shown, not when the attribute is learned, and then kept (`GATTDatabase.label`).
    var label: String {
        let own = name ?? uuid.description
        switch kind {
        case .descriptor:
            return about.map { (aboutName ?? GATTNames.display($0)) + ": " + own } ?? own
        case .characteristicDeclaration, .primaryService, .secondaryService, .include:
            return about.map { own + ": " + (aboutName ?? GATTNames.display($0)) } ?? own
        case .characteristicValue, .attribute:
            return own
        }
    }
}

/// A service's handle range.
struct ServiceRange {
    var start: UInt16
    var end: UInt16
    var uuid: BluetoothUUID
}

/// The last answers of a look-up by handle, at handle modulo 4, each valid while the generation
/// it was made in is its table's current one: a stream of notifications and writes names the
/// same few handles, so most look-ups are answered here without hashing.
struct KeptAnswers<Value> {
    private struct Entry {
        var handle: UInt16 = 0
        var generation = -1
        var value: Value
    }

    private var entries: [Entry]

    init(_ empty: Value) { entries = [Entry](repeating: Entry(value: empty), count: 4) }

    /// The answer for `handle` in `generation`, made by `make` when none is kept.
    mutating func answer(_ handle: UInt16, generation: Int, _ make: () -> Value) -> Value {
        let i = Int(handle & 3)
        if entries[i].generation == generation && entries[i].handle == handle { return entries[i].value }
        let value = make()
        entries[i] = Entry(handle: handle, generation: generation, value: value)
        return value
    }
}

/// What a database knows of one handle (`GATTDatabase.facts`).
struct HandleFacts {
    struct Attribute {
        var kind: AttributeInfo.Kind
        var uuid: BluetoothUUID
        var about: BluetoothUUID?
        /// Whether the attribute has a name (`GATTDatabase[handle]?.name`).
        var named: Bool
    }

    var attribute: Attribute?
    var service: ServiceRange?
}

/// A connection's GATT database as far as the capture shows it: handle → attribute.
final class GATTDatabase {
    private(set) var attributes: [UInt16: AttributeInfo] = [:]
    /// Each attribute's `label`, made the first time a summary shows it: summaries name a handle
    /// in nearly every ATT PDU, and the label's text (a 128-bit UUID's, say) costs more than the
    /// rest of the PDU's decoding.
    private var labels: [UInt16: String] = [:]
    /// What the last handles looked up by `uuid(_:)` and `label(_:)` gave, at handle modulo 4: a
    /// stream of writes and notifications names the same few handles, in nearly every ATT PDU.
    /// An entry is emptied when its handle is learned, all of them when handles are forgotten.
    private var recent = [RecentHandle](repeating: RecentHandle(), count: 4)
    /// The last answers of `facts`.
    private var keptFacts = KeptAnswers(HandleFacts())
    /// Changes with every change to the attributes or services.
    private var generation = 0
    private(set) var services: [ServiceRange] = []
    /// Set once the attribute table was full, so the note is given once.
    var fullNoted = false

    /// The most attributes learned per connection (the handle space is 65535).
    static let maximumAttributes = 4096
    /// The most service ranges learned per connection.
    static let maximumServices = 512

    subscript(handle: UInt16) -> AttributeInfo? { attributes[handle] }

    /// Learns `info` for `handle`; false when the table is full and the handle is new.
    @discardableResult
    func learn(_ handle: UInt16, _ info: AttributeInfo) -> Bool {
        if attributes[handle] == nil, attributes.count >= Self.maximumAttributes { return false }
        attributes[handle] = info
        labels[handle] = nil
        recent[Int(handle & 3)] = RecentHandle()
        generation &+= 1
        return true
    }

    /// Learns a service range; false when the table is full.
    @discardableResult
    func learnService(_ range: ServiceRange) -> Bool {
        generation &+= 1
        if let i = services.firstIndex(where: { $0.start == range.start }) {
            services[i] = range
            return true
        }
        guard services.count < Self.maximumServices else { return false }
        services.append(range)
        return true
    }

    /// The service whose range holds `handle`.
    func service(containing handle: UInt16) -> ServiceRange? {
        var best: ServiceRange? = nil
        for s in services where s.start <= handle && handle <= s.end {
            // Nested ranges do not occur in a valid database; prefer the narrowest anyway.
            if let b = best, b.start > s.start { continue }
            best = s
        }
        return best
    }

    /// The characteristic value nearest below `handle` (the characteristic a descriptor belongs
    /// to), looking back at most 64 handles and not past a declaration of a service.
    func owningCharacteristic(of handle: UInt16) -> BluetoothUUID? {
        var h = handle
        var steps = 0
        while h > 1, steps < 64 {
            h -= 1
            steps += 1
            guard let a = attributes[h] else { continue }
            switch a.kind {
            case .characteristicValue: return a.uuid
            case .characteristicDeclaration: return a.about
            case .primaryService, .secondaryService: return nil
            default: continue
            }
        }
        return nil
    }

    /// Forgets what was learned about handles `start...end` (after a Service Changed indication).
    func forget(_ start: UInt16, _ end: UInt16) {
        guard start <= end else { return }
        attributes = attributes.filter { !($0.key >= start && $0.key <= end) }
        labels = labels.filter { !($0.key >= start && $0.key <= end) }
        for i in recent.indices { recent[i] = RecentHandle() }
        services.removeAll { $0.start >= start && $0.start <= end }
        fullNoted = false
        generation &+= 1
    }

    /// What the database knows of `handle` (its attribute and the service holding it), as plain
    /// bits: a stream of PDUs names the same few handles, and this answers them without hashing.
    func facts(_ handle: UInt16) -> HandleFacts {
        keptFacts.answer(handle, generation: generation) {
            var found = HandleFacts(service: service(containing: handle))
            if let a = attributes[handle] {
                found.attribute = HandleFacts.Attribute(
                    kind: a.kind,
                    uuid: a.uuid,
                    about: a.about,
                    named: a.name != nil
                )
            }
            return found
        }
    }

    /// The type of the attribute at `handle`, if known.
    func uuid(_ handle: UInt16) -> BluetoothUUID? { recent[recentEntry(handle)].uuid }

    /// A short description of the attribute at `handle` for summaries.
    func label(_ handle: UInt16) -> String? { recent[recentEntry(handle)].label }

    /// The index in `recent` of `handle`'s entry, filled from the tables when it held another
    /// handle. (An index, not the entry: copying the entry would count a reference to its label.)
    private func recentEntry(_ handle: UInt16) -> Int {
        let i = Int(handle & 3)
        if recent[i].filled, recent[i].handle == handle { return i }
        recent[i] = RecentHandle(handle: handle, filled: true, uuid: attributes[handle]?.uuid, label: madeLabel(handle))
        return i
    }

    private func madeLabel(_ handle: UInt16) -> String? {
        if let cached = labels[handle] { return cached }
        guard let made = attributes[handle]?.label else { return nil }
        labels[handle] = made
        return made
    }

    /// One entry of `recent`.
    private struct RecentHandle {
        var handle: UInt16 = 0
        var filled = false
        var uuid: BluetoothUUID? = nil
        var label: String? = nil
    }
}

/// What Wireshark records of one handle: the UUID it names the handle by, and whether the handle
/// opens a service or holds a characteristic's value.
struct RecordedHandle {
    enum Role: UInt8 {
        /// A service declaration, recorded under the service's UUID (Read By Group Type).
        case service
        /// A characteristic value, recorded under the characteristic's UUID (a characteristic
        /// declaration's value handle).
        case characteristic
        /// Anything else: a handle listed by Find Information or Read By Type under its type, or an
        /// included service's first handle.
        case other
    }

    var uuid: BluetoothUUID
    var role: Role
}

/// The UUIDs Wireshark puts under a `btatt.handle`: the service and characteristic the handle
/// falls in and the handle's own UUID. The service and characteristic are left out where they
/// equal the handle's own UUID (a service declaration, a characteristic value).
struct HandleUUIDs {
    var service: BluetoothUUID?
    var characteristic: BluetoothUUID?
    var attribute: BluetoothUUID?

    var isEmpty: Bool { service == nil && characteristic == nil && attribute == nil }
}

/// The handles of one controller as Wireshark (tshark 4.0) records them, for the `btatt.uuid*`,
/// `btatt.service_uuid*` and `btatt.characteristic_uuid*` fields under each `btatt.handle`.
///
/// Unlike `GATTDatabase` (one per connection, forgotten at disconnection, services by their
/// handle range), this follows Wireshark: one record per controller, kept for the whole capture
/// across connections, each handle holding the last thing a PDU said of it; a handle's service is
/// the nearest service declaration at or below it, its characteristic the nearest characteristic
/// value at or below it with no service declaration in between.
final class HandleRecord {
    private(set) var records: [UInt16: RecordedHandle] = [:]
    /// Changes with every change to the record, so that a kept answer of `uuids` can tell
    /// whether it still holds.
    private var generation = 0
    /// The last answers of `uuids` (each costs three look-ups and two searches).
    private var answers = KeptAnswers(HandleUUIDs())
    /// The handles recorded as services, ascending.
    private var services: [UInt16] = []
    /// The handles recorded as services or characteristics, ascending.
    private var boundaries: [UInt16] = []
    /// Set once the record was full, so the note is given once.
    var fullNoted = false

    /// The most handles recorded per controller.
    static let maximumHandles = 4096

    /// Records `entry` for `handle`, or forgets the handle when `entry` is nil; false when the
    /// record is full and the handle is new.
    @discardableResult
    func record(_ handle: UInt16, _ entry: RecordedHandle?) -> Bool {
        let old = records[handle]
        if old == nil, entry != nil, records.count >= Self.maximumHandles { return false }
        records[handle] = entry
        generation &+= 1
        Self.update(&services, handle, was: old?.role == .service, is: entry?.role == .service)
        Self.update(
            &boundaries,
            handle,
            was: old.map { $0.role != .other } ?? false,
            is: entry.map { $0.role != .other } ?? false
        )
        return true
    }

    /// The UUIDs Wireshark shows under `handle` now.
    func uuids(_ handle: UInt16) -> HandleUUIDs {
        answers.answer(handle, generation: generation) { lookUp(handle) }
    }

    private func lookUp(_ handle: UInt16) -> HandleUUIDs {
        let attribute = records[handle]?.uuid
        var found = HandleUUIDs(attribute: attribute)
        if let s = Self.atOrBelow(services, handle), let service = records[s]?.uuid, service != attribute {
            found.service = service
        }
        if let b = Self.atOrBelow(boundaries, handle), let r = records[b], r.role == .characteristic,
            r.uuid != attribute
        {
            found.characteristic = r.uuid
        }
        return found
    }

    /// Adds `handle` to or removes it from the ascending list `list`.
    private static func update(_ list: inout [UInt16], _ handle: UInt16, was: Bool, is now: Bool) {
        guard was != now else { return }
        let i = insertionIndex(list, handle)
        if now {
            list.insert(handle, at: i)
        } else if i < list.count, list[i] == handle {
            list.remove(at: i)
        }
    }

    /// The index of the first element not below `handle`.
    private static func insertionIndex(_ list: [UInt16], _ handle: UInt16) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = low + (high - low) / 2
            if list[mid] < handle { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The greatest element of `list` that is not above `handle`.
    private static func atOrBelow(_ list: [UInt16], _ handle: UInt16) -> UInt16? {
        let i = insertionIndex(list, handle)
        if i < list.count, list[i] == handle { return handle }
        return i > 0 ? list[i - 1] : nil
    }
}

/// Values by key, at most `limit` of them (past it, an arbitrary one is dropped for a new one),
/// with the last look-up kept: consecutive PDUs nearly always name the same bearer, database
/// and record, and hashing the key costs more than the rest of the look-up.
struct BoundedTable<Key: Hashable, Value> {
    private var values: [Key: Value] = [:]
    /// The last key looked up and what it gave, nil included.
    private var last: (key: Key, value: Value?)? = nil
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// `existing`, without counting a reference to the value (see `findOrMakeUnretained`).
    mutating func existingUnretained(_ key: Key) -> Unmanaged<Value>? where Value: AnyObject {
        if let last, last.key == key { return last.value.map { .passUnretained($0) } }
        return existing(key).map { .passUnretained($0) }
    }

    /// The value at `key`, if there is one.
    mutating func existing(_ key: Key) -> Value? {
        if let last, last.key == key { return last.value }
        let value = values[key]
        last = (key, value)
        return value
    }

    /// The value at `key`, made on first use; `evicted` is set when another was dropped for it.
    mutating func findOrMake(_ key: Key, evicted: inout Bool, make: () -> Value) -> Value {
        if let value = existing(key) { return value }
        if values.count >= limit, let victim = values.keys.first {
            values[victim] = nil
            evicted = true
        }
        let value = make()
        values[key] = value
        last = (key, value)
        return value
    }

    /// `findOrMake`, without counting a reference to the value: it stays in the table until
    /// another is made in its place or it is removed.
    mutating func findOrMakeUnretained(_ key: Key, evicted: inout Bool, make: () -> Value) -> Unmanaged<Value>
    where Value: AnyObject {
        if let last, last.key == key, let value = last.value { return .passUnretained(value) }
        return .passUnretained(findOrMake(key, evicted: &evicted, make: make))
    }

    mutating func remove(_ key: Key) {
        values[key] = nil
        if last?.key == key { last = nil }
    }
}

/// The ATT module's state for one capture.
final class ATTState: ConnectionScopedState {
    private var bearers = BoundedTable<BearerKey, ATTBearer>(limit: ATTState.maximumConnections)
    private var databases = BoundedTable<ConnectionKey, GATTDatabase>(limit: ATTState.maximumConnections)
    /// Wireshark's record of handles, per controller; kept when connections close.
    private var handleRecords = BoundedTable<UInt16, HandleRecord>(limit: ATTState.maximumControllers)
    /// The connection of the value being decoded.
    var valueConnection: ConnectionKey? = nil

    /// The most bearers and databases kept; past it an arbitrary one is dropped, with a note.
    static let maximumConnections = 4096
    /// The most controllers whose handles are recorded; past it an arbitrary one is dropped.
    static let maximumControllers = 64

    init() {}

    static func of(_ context: DissectionContext) -> ATTState {
        context.state.module(ATTState.self) { ATTState() }
    }

    /// The bearer for `key`, made on first use, unretained (see `ATTPDU`). `evicted` is set when
    /// another was dropped for it.
    func unretainedBearer(_ key: BearerKey, evicted: inout Bool) -> Unmanaged<ATTBearer> {
        bearers.findOrMakeUnretained(key, evicted: &evicted) { ATTBearer() }
    }

    /// The database of `connection`, if anything was learned on it.
    func existingDatabase(_ connection: ConnectionKey) -> GATTDatabase? { databases.existing(connection) }

    /// `existingDatabase`, unretained (see `ATTPDU`).
    func unretainedDatabase(_ connection: ConnectionKey) -> Unmanaged<GATTDatabase>? {
        databases.existingUnretained(connection)
    }

    /// The database of `connection`, made on first use.
    func database(_ connection: ConnectionKey, evicted: inout Bool) -> GATTDatabase {
        databases.findOrMake(connection, evicted: &evicted) { GATTDatabase() }
    }

    /// Wireshark's record of the handles on `controller`, made on first use. `evicted` is set
    /// when another controller's was dropped for it.
    func handleRecord(_ controller: UInt16, evicted: inout Bool) -> HandleRecord {
        handleRecords.findOrMake(controller, evicted: &evicted) { HandleRecord() }
    }

    /// Makes the record of `controller`'s handles if there is none (`handleRecord`).
    func makeHandleRecord(_ controller: UInt16, evicted: inout Bool) {
        _ = handleRecords.findOrMakeUnretained(controller, evicted: &evicted) { HandleRecord() }
    }

    func connectionClosed(_ key: ConnectionKey) {
        databases.remove(key)
        bearers.remove(BearerKey(connection: key, enhanced: false))
        bearers.remove(BearerKey(connection: key, enhanced: true))
    }
}
