public import BLEAdvBudget
import BLEInspectCore
public import BLEInspectSession
public import BLEInspectViews

/// `adv-budget --capture`: the adverts a capture shows, as `RawAdvert`s for
/// `AdvBudgetEngine.check(raw:options:)` (see the top of Sources/BLEAdvBudget/Inputs.swift).
///
/// Two kinds of advert are read, from the decoded HCI fields:
///
/// - **Set by the host.** LE Set Advertising Data / Scan Response Data (0x2008, 0x2009: the
///   Data_Length significant bytes, not the zero padding) and their extended forms (0x2037,
///   0x2038) per advertising handle, fragments joined by Operation (0x01 first, 0x00
///   intermediate, 0x02 last, 0x03 complete; 0x04 leaves the data as it is). A set's advertising
///   data and scan response data make one advert, taken when advertising is enabled (0x200A,
///   0x2039 naming the handle), when its data changes while it is enabled, and at the end for
///   data that was set and never enabled. `connectable` comes from LE Set Advertising Parameters
///   (0x2006) or the extended properties (0x2036, 0x207F), whose legacy bit also gives the kind.
/// - **Received.** LE Advertising Report (0x3E/0x02) and LE Extended Advertising Report
///   (0x3E/0x0D), extended data split over several reports joined per address and SID. One
///   advert per distinct address, PDU type and bytes: the label names the first frame and counts
///   the rest.
///
/// Memory is bounded (`Limits`): distinct adverts, joined bytes per set (1650, §1.3), sets and
/// reports being joined. Whatever is cut is said in a label; malformed commands and reports give
/// an advert of the bytes present whose label says what is wrong.
public enum CapturedAdverts {
    /// What one reading keeps at most.
    struct Limits {
        /// Distinct received adverts; more are counted in the last one's label.
        var receivedAdverts = 10_000
        /// Distinct adverts set by the host; more are counted in the last one's label.
        var hostAdverts = 10_000
        /// Bytes of one joined advertising or scan response data (the extended maximum, §1.3).
        var dataBytes = 1650
        /// Advertising sets followed at once.
        var sets = 1024
        /// Extended reports being joined at once (per address and SID).
        var joins = 256
    }

    /// Reads every frame of `scan` and returns the adverts found, in capture order, and the
    /// exit status of the reading (damaged input is reported through the scan's error output).
    /// `linkLayerFrames` counts the over-the-air frames of sniffer captures, which are not read:
    /// the caller says so, since adverts sniffed on air are not checked.
    public static func read(_ scan: CaptureScan) -> (adverts: [RawAdvert], status: ExitStatus, linkLayerFrames: Int) {
        read(scan, limits: Limits())
    }

    static func read(_ scan: CaptureScan, limits: Limits) -> (
        adverts: [RawAdvert], status: ExitStatus, linkLayerFrames: Int
    ) {
        var collector: AdvertCollector? = nil
        let status = scan.runView("adv-budget", errorOutput: scan.reportError) { registry in
            let c = AdvertCollector(registry: registry, limits: limits)
            collector = c
            return .success(.init(missing: c.missingFields, readsDevices: false, take: { c.add($0, $1) }))
        }
        guard let collector, status != .software else { return ([], status, 0) }
        return (collector.finish(), status, collector.linkLayerFrames)
    }
}

/// Joins the pieces of one advertising or scan response data, keeping at most `limit` bytes.
struct AdvertJoin {
    private(set) var bytes: [UInt8] = []
    let firstFrame: Int
    private(set) var lastFrame: Int
    private(set) var pieces = 0
    /// Bytes offered, kept or not.
    private(set) var offered = 0
    var notes: [String] = []

    init(frame: Int) {
        firstFrame = frame
        lastFrame = frame
    }

    /// A join that starts with `piece`, from `frame`.
    init(_ piece: ArraySlice<UInt8>, frame: Int, limit: Int) {
        self.init(frame: frame)
        append(piece, frame: frame, limit: limit)
    }

    mutating func append(_ piece: ArraySlice<UInt8>, frame: Int, limit: Int) {
        pieces += 1
        lastFrame = frame
        offered = piece.count > Int.max - offered ? Int.max : offered + piece.count
        let room = max(0, limit - bytes.count)
        bytes += piece.prefix(room)
    }

    /// The data as a whole, the cut (if any) noted.
    func finished(limit: Int) -> AdvertJoin {
        var done = self
        if offered > bytes.count {
            done.notes.append("truncated: \(offered) bytes, the first \(bytes.count) kept (\(limit) at most)")
        }
        return done
    }

    /// "frame 31" or "frames 31–33".
    var frames: String { firstFrame == lastFrame ? "frame \(firstFrame)" : "frames \(firstFrame)–\(lastFrame)" }
}

/// Builds `CapturedAdverts`' list from the fields of each frame.
final class AdvertCollector {
    enum Field: String, CaseIterable {
        case opcode = "bthci_cmd.opcode", dataLength = "bthci_cmd.le_data_length"
        case handle = "bthci_cmd.advertising_handle", operation = "bthci_cmd.adv_data_operation"
        case advertisingType = "bthci_cmd.le_advts_type", properties = "bthci_cmd.advertising_properties"
        case enable = "bthci_cmd.le_advts_enable", enabledSet = "bthci_cmd.le_adv_set"
        case adBlock = "btcommon.eir_ad.advertising_data", data = "data.data"
        case subevent = "bthci_evt.le_meta_subevent", status = "bthci_evt.status"
        case role = "bthci_evt.role", terminatedHandle = "bthci_evt.adv_handle", report = "bthci_evt.report"
        case eventType = "bthci_evt.le_advts_event_type", extendedEventType = "bthci_evt.le_ext_advts_event_type"
        case address = "bthci_evt.bd_addr", addressType = "bthci_evt.le_peer_address_type"
        case sid = "bthci_evt.advertising_sid", reportDataLength = "bthci_evt.data_length"
    }

    /// An advertising set: the legacy one (`handle` nil) or an extended handle, per controller.
    struct SetKey: Hashable {
        var controller: UInt16?
        var handle: UInt8?

        var name: String { handle.map { "set \($0)" } ?? "legacy set" }
    }

    /// What the host has told the controller about one set.
    struct HostSet {
        var advertising: AdvertJoin?
        var scanResponse: AdvertJoin?
        var pendingAdvertising: AdvertJoin?
        var pendingScanResponse: AdvertJoin?
        /// LE Set Advertising Parameters' Advertising_Type.
        var legacyType: UInt8?
        /// LE Set Extended Advertising Parameters' Advertising_Event_Properties.
        var properties: UInt16?
        var enabled = false
        var everEnabled = false
        /// The data changed since it was last taken.
        var untaken = false
    }

    /// One advert of the result, its label finished at the end.
    struct Entry {
        var advert: RawAdvert
        var count = 1
        /// Appended to the label when `count` > 1, after the count: "seen 4 times".
        var countWord: String
        var extra: String = ""
    }

    /// Distinct adverts of one side (host or received): kept, dropped past the limit, and the
    /// last kept one's index.
    struct Tally {
        var kept = 0
        var dropped = 0
        var last: Int?
    }

    /// What makes two adverts the same.
    struct EntryKey: Hashable {
        var origin: String
        var kind: RawAdvert.Kind
        var advertising: [UInt8]?
        var scanResponse: [UInt8]?
        var connectable: Bool?
        var note: String
    }

    private let f: FieldLookup<Field>
    private let limits: CapturedAdverts.Limits
    private var firsts: [Int32] = []
    private var sets: [SetKey: HostSet] = [:]
    /// Set keys in the order they were first seen, for a stable order at the end.
    private var setOrder: [SetKey] = []
    private var joins: [ReportKey: AdvertJoin] = [:]
    private var joinOrder: [ReportKey] = []
    private var entries: [Entry] = []
    private var index: [EntryKey: Int] = [:]
    private var hostTally = Tally()
    private var receivedTally = Tally()

    /// What HCI declares the commands and LE subevents to be (`KeyRole`), by opcode and code.
    private let commandRoles: [UInt64: KeyRole]
    private let subeventRoles: [UInt64: KeyRole]

    init(registry: DissectorRegistry, limits: CapturedAdverts.Limits) {
        f = FieldLookup(registry)
        self.limits = limits
        commandRoles = registry.roles(in: StandardTables.hciCommand)
        subeventRoles = registry.roles(in: StandardTables.leMetaSubevent)
    }

    var missingFields: [String] { f.missing }

    /// Over-the-air frames seen (sniffer captures), which are not read.
    private(set) var linkLayerFrames = 0

    func add(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree) {
        if case .linkLayer = frame.kind { linkLayerFrames += 1 }
        guard frame.kind == .hciCommand || frame.kind == .hciEvent else { return }
        TreeWalk.with(frame, tree) { walk in
            f.firstNodes(walk.nodes, into: &firsts)
            if frame.kind == .hciCommand {
                command(frame, walk)
            } else {
                event(frame, walk)
            }
        }
    }

    /// The adverts in capture order, with the sets that were configured and not enabled last.
    func finish() -> [RawAdvert] {
        for key in setOrder { flush(key) }
        for key in joinOrder {
            guard var join = joins[key] else { continue }
            join.notes.append("incomplete: the capture ends before its last fragment")
            received(key, join.finished(limit: limits.dataBytes))
        }
        joins = [:]
        joinOrder = []
        for (tally, what, limit) in [
            (hostTally, "advert(s) set by the host", limits.hostAdverts),
            (receivedTally, "received advert(s)", limits.receivedAdverts),
        ] where tally.dropped > 0 {
            guard let i = tally.last else { continue }
            entries[i].extra += "; \(tally.dropped) more distinct \(what) not checked (\(limit) at most)"
        }
        return entries.map { entry in
            var advert = entry.advert
            if entry.count > 1 { advert.label += ", \(entry.countWord) \(entry.count) times" }
            advert.label += entry.extra
            return advert
        }
    }

    // MARK: Reading fields

    private func node(_ field: Field) -> Int? { f.node(field, in: firsts) }

    private func value(_ field: Field, _ walk: TreeWalk) -> UInt64? { node(field).flatMap(walk.unsigned) }

    private func byte(_ field: Field, _ walk: TreeWalk) -> UInt8? {
        value(field, walk).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The data a Data_Length node announces: the AD block or undecoded bytes in `range`, or,
    /// when the decoder stopped (fewer bytes than announced), the bytes after the length in the
    /// frame. `problem` says what is wrong, nil when the data is whole.
    private func data(
        _ walk: TreeWalk,
        length lengthNode: Int?,
        in range: Range<Int>
    ) -> (bytes: ArraySlice<UInt8>, problem: String?) {
        guard let lengthNode, let announced = walk.unsigned(lengthNode) else {
            return ([], "no Data_Length")
        }
        let wanted = Int(clamping: announced)
        if let block = walk.first(f[.adBlock], in: range) ?? walk.first(f[.data], in: range) {
            let bytes = walk.bytes(block)
            if bytes.count == wanted { return (bytes, nil) }
        }
        if wanted == 0 { return ([], nil) }
        // The parameters after the length, as many as the frame holds (the decoder stopped).
        let node = walk.nodes[lengthNode]
        guard node.source == 0 else { return ([], "Data_Length \(wanted) but the data is not in the frame") }
        let start = max(0, min(node.range.upperBound, walk.frame.bytes.count))
        let end = start + min(wanted, walk.frame.bytes.count - start)
        let present = walk.frame.bytes[start..<end]
        if present.count == wanted { return (present, nil) }
        return (present, "malformed: Data_Length \(wanted) but \(present.count) bytes follow")
    }

    // MARK: Commands

    private func command(_ frame: CapturedFrame, _ walk: TreeWalk) {
        guard let opcode = value(.opcode, walk), let role = commandRoles[opcode] else { return }
        let controller = frame.controllerIndex
        let handle = byte(.handle, walk)
        switch role {
        case .advertisingParameters(extended: false):
            update(SetKey(controller: controller, handle: nil)) { $0.legacyType = byte(.advertisingType, walk) }
        case .advertisingParameters(extended: true):
            guard let handle else { return }
            let properties = value(.properties, walk).map { UInt16(truncatingIfNeeded: $0) }
            update(SetKey(controller: controller, handle: handle)) { $0.properties = properties }
        case .advertisingData(let scanResponse, extended: false):
            legacyData(frame, walk, scanResponse: scanResponse)
        case .advertisingData(let scanResponse, extended: true):
            guard let handle else { return }
            extendedData(frame, walk, handle: handle, scanResponse: scanResponse)
        case .advertisingEnable(extended: false):
            guard let enable = byte(.enable, walk) else { return }
            enabled(SetKey(controller: controller, handle: nil), enable != 0, frame: frame.number)
        case .advertisingEnable(extended: true):
            guard let enable = byte(.enable, walk) else { return }
            let listed = walk.all(f[.enabledSet], in: 0..<walk.nodes.count).compactMap { set in
                walk.first(f[.handle], in: set..<walk.end(of: set)).flatMap(walk.unsigned)
                    .map { UInt8(truncatingIfNeeded: $0) }
            }
            if listed.isEmpty && enable == 0 {
                // Number_of_Sets 0 disables every set.
                for key in setOrder where key.controller == controller && key.handle != nil {
                    enabled(key, false, frame: frame.number)
                }
            }
            for h in listed { enabled(SetKey(controller: controller, handle: h), enable != 0, frame: frame.number) }
        case .removeAdvertisingSet:
            guard let handle else { return }
            remove { $0 == SetKey(controller: controller, handle: handle) }
        case .clearAdvertisingSets:
            remove { $0.controller == controller && $0.handle != nil }
        case .controllerReset:
            remove { $0.controller == controller }
        case .connectionComplete, .advertisingReport, .advertisingSetTerminated:
            break
        }
    }

    /// Changes the set `key`, made on first sight; nothing when too many sets are followed.
    private func update(_ key: SetKey, _ body: (inout HostSet) -> Void) {
        if sets[key] == nil {
            guard sets.count < limits.sets else { return }
            sets[key] = HostSet()
            setOrder.append(key)
        }
        guard var set = sets[key] else { return }
        body(&set)
        sets[key] = set
    }

    private func remove(where matches: (SetKey) -> Bool) {
        let gone = setOrder.filter(matches)
        guard !gone.isEmpty else { return }
        for key in gone {
            flush(key)
            sets[key] = nil
        }
        setOrder.removeAll(where: matches)
    }

    /// LE Set Advertising Data / Scan Response Data: at most 31 significant bytes.
    private func legacyData(_ frame: CapturedFrame, _ walk: TreeWalk, scanResponse: Bool) {
        let key = SetKey(controller: frame.controllerIndex, handle: nil)
        let name = scanResponse ? "LE Set Scan Response Data" : "LE Set Advertising Data"
        let (bytes, found) = data(walk, length: node(.dataLength), in: 0..<walk.nodes.count)
        var problem = found
        if problem == nil && bytes.count > 31 {
            problem = "malformed: Data_Length \(bytes.count) is over 31"
        }
        var join = AdvertJoin(bytes, frame: frame.number, limit: limits.dataBytes)
        if let problem {
            rejected(key, join, command: name, problem: problem, scanResponse: scanResponse)
            return
        }
        update(key) { set in
            if scanResponse { set.scanResponse = join } else { set.advertising = join }
            set.untaken = true
        }
        if sets[key]?.enabled == true { take(key, reason: "set while advertising was enabled") }
    }

    /// LE Set Extended Advertising Data / Scan Response Data: fragments joined by Operation.
    private func extendedData(_ frame: CapturedFrame, _ walk: TreeWalk, handle: UInt8, scanResponse: Bool) {
        let key = SetKey(controller: frame.controllerIndex, handle: handle)
        let name = scanResponse ? "LE Set Extended Scan Response Data" : "LE Set Extended Advertising Data"
        guard let operation = byte(.operation, walk) else { return }
        let (bytes, problem) = data(walk, length: node(.dataLength), in: 0..<walk.nodes.count)
        if let problem {
            var join = AdvertJoin(bytes, frame: frame.number, limit: limits.dataBytes)
            rejected(key, join, command: name, problem: problem, scanResponse: scanResponse)
            return
        }
        let limit = limits.dataBytes
        var completed = false
        update(key) { set in
            var pending = scanResponse ? set.pendingScanResponse : set.pendingAdvertising
            var current = scanResponse ? set.scanResponse : set.advertising
            switch operation {
            case 0x03:  // complete
                var join = AdvertJoin(bytes, frame: frame.number, limit: limit)
                if pending != nil { join.notes.append("an unfinished fragmented data was replaced") }
                pending = nil
                current = join.finished(limit: limit)
                completed = true
            case 0x01:  // first fragment
                var join = AdvertJoin(bytes, frame: frame.number, limit: limit)
                if pending != nil { join.notes.append("an unfinished fragmented data was replaced") }
                pending = join
            case 0x00, 0x02:  // intermediate, last
                var join: AdvertJoin
                if let pending {
                    join = pending
                } else {
                    join = AdvertJoin(frame: frame.number)
                    join.notes.append("no first fragment (Operation 0x01) before frame \(frame.number)")
                }
                join.append(bytes, frame: frame.number, limit: limit)
                if operation == 0x02 {
                    pending = nil
                    current = join.finished(limit: limit)
                    completed = true
                } else {
                    pending = join
                }
            default:  // 0x04 unchanged data (only the DID changes), or a reserved value
                break
            }
            if scanResponse {
                set.pendingScanResponse = pending
                set.scanResponse = current
            } else {
                set.pendingAdvertising = pending
                set.advertising = current
            }
            if completed { set.untaken = true }
        }
        if operation > 0x04 {
            var join = AdvertJoin(bytes, frame: frame.number, limit: limit)
            let problem = "reserved Operation \(HexText.prefixed(UInt64(operation), digits: 1))"
            rejected(key, join, command: name, problem: problem, scanResponse: scanResponse)
            return
        }
        if completed && sets[key]?.enabled == true { take(key, reason: "set while advertising was enabled") }
    }

    /// A command a controller rejects (or data never completed): an advert of its own, the set
    /// left as it was.
    private func rejected(
        _ key: SetKey,
        _ join: AdvertJoin,
        command: String,
        problem: String,
        scanResponse: Bool,
        outcome: String = "a controller rejects it"
    ) {
        let set = sets[key] ?? HostSet()
        let label = "\(join.frames), \(command)\(Self.details(join)) (\(key.name)): \(problem); \(outcome)"
        host(
            key,
            RawAdvert(
                label: label,
                kind: kind(key, set),
                advertisingData: scanResponse ? nil : join.bytes,
                scanResponseData: scanResponse ? join.bytes : nil,
                connectable: scanResponse ? nil : connectable(key, set)
            ),
            note: problem
        )
    }

    private func enabled(_ key: SetKey, _ on: Bool, frame: Int) {
        guard sets[key] != nil || on else { return }
        update(key) { set in
            set.enabled = on
            if on { set.everEnabled = true }
        }
        if on { take(key, reason: "enabled in frame \(frame)") }
    }

    // MARK: Host adverts

    private func kind(_ key: SetKey, _ set: HostSet) -> RawAdvert.Kind {
        guard key.handle != nil else { return .legacy }
        if let p = set.properties, p & 0x10 != 0 { return .legacy }
        return .extended
    }

    /// ADV_IND (0x00) and ADV_DIRECT_IND (0x01, 0x04) are connectable; ADV_SCAN_IND (0x02) and
    /// ADV_NONCONN_IND (0x03) are not. Extended: the properties' Connectable bit.
    private func connectable(_ key: SetKey, _ set: HostSet) -> Bool? {
        if key.handle == nil {
            switch set.legacyType {
            case 0x00, 0x01, 0x04: return true
            case 0x02, 0x03: return false
            default: return nil
            }
        }
        return set.properties.map { $0 & 0x01 != 0 }
    }

    /// The set's current data as one advert: when enabled, when changed while enabled, and at
    /// the end or when the set goes if it was not taken since it changed (`onAir` false: such an
    /// advert is never merged with one that was on air).
    private func take(_ key: SetKey, reason: String, onAir: Bool = true) {
        guard let set = sets[key], set.advertising != nil || set.scanResponse != nil else { return }
        sets[key]?.untaken = false
        var parts: [String] = []
        if let a = set.advertising {
            let command = key.handle == nil ? "LE Set Advertising Data" : "LE Set Extended Advertising Data"
            parts.append("\(a.frames), \(command)" + Self.details(a))
        }
        if let s = set.scanResponse {
            let command = key.handle == nil ? "Scan Response" : "Extended Scan Response"
            parts.append(
                (set.advertising == nil ? "\(s.frames), LE Set \(command) Data" : "\(s.frames) \(command)")
                    + Self.details(s)
            )
        }
        let label = parts.joined(separator: " + ") + " (\(key.name)), \(reason)"
        host(
            key,
            RawAdvert(
                label: label,
                kind: kind(key, set),
                advertisingData: set.advertising?.bytes,
                scanResponseData: set.scanResponse?.bytes,
                connectable: connectable(key, set)
            ),
            note: onAir ? "" : "not enabled"
        )
    }

    /// " (3 fragments; truncated: …)", or nothing.
    private static func details(_ join: AdvertJoin) -> String {
        var words: [String] = []
        if join.pieces > 1 { words.append("\(join.pieces) fragments") }
        words += join.notes
        return words.isEmpty ? "" : " (" + words.joined(separator: "; ") + ")"
    }

    /// Takes the set's data if it was set and not taken since; called at the end and when the
    /// set is removed.
    private func flush(_ key: SetKey) {
        guard let set = sets[key] else { return }
        if set.untaken {
            take(
                key,
                reason: set.everEnabled ? "not enabled again after it was set" : "never enabled",
                onAir: false
            )
        }
        for (pending, scan) in [(set.pendingAdvertising, false), (set.pendingScanResponse, true)] {
            guard let pending else { continue }
            let name = scan ? "LE Set Extended Scan Response Data" : "LE Set Extended Advertising Data"
            rejected(
                key,
                pending.finished(limit: limits.dataBytes),
                command: name,
                problem: "no last fragment (Operation 0x02)",
                scanResponse: scan,
                outcome: "the data was never complete"
            )
        }
        sets[key]?.pendingAdvertising = nil
        sets[key]?.pendingScanResponse = nil
        sets[key]?.untaken = false
    }

    private func host(_ key: SetKey, _ advert: RawAdvert, note: String) {
        let entryKey = EntryKey(
            origin: "host \(key.controller.map(String.init) ?? "-") \(key.name)",
            kind: advert.kind,
            advertising: advert.advertisingData,
            scanResponse: advert.scanResponseData,
            connectable: advert.connectable,
            note: note
        )
        record(advert, entryKey, in: &hostTally, limit: limits.hostAdverts, countWord: "on air")
    }

    /// Adds `advert`, or counts it again when an advert with the same key is there already;
    /// past `limit` distinct adverts of its side, only counts it in `tally`.
    private func record(_ advert: RawAdvert, _ key: EntryKey, in tally: inout Tally, limit: Int, countWord: String) {
        if let i = index[key] {
            entries[i].count += 1
            return
        }
        guard tally.kept < limit else {
            tally.dropped += 1
            return
        }
        tally.kept += 1
        tally.last = entries.count
        index[key] = entries.count
        entries.append(Entry(advert: advert, countWord: countWord))
    }

    // MARK: Events

    /// Extended reports are joined per controller, address and SID, adverts and scan responses apart.
    struct ReportKey: Hashable {
        var controller: UInt16?
        var address: BDAddr?
        var addressType: UInt8?
        var extended: Bool
        var sid: UInt8?
        var eventType: UInt16
    }

    private func event(_ frame: CapturedFrame, _ walk: TreeWalk) {
        guard let sub = value(.subevent, walk), let role = subeventRoles[sub] else { return }
        let controller = frame.controllerIndex
        switch role {
        case .advertisingReport(let extended):
            for report in walk.all(f[.report], in: 0..<walk.nodes.count) {
                self.report(frame, walk, report..<walk.end(of: report), extended: extended)
            }
        case .connectionComplete:  // a connection as peripheral stops legacy advertising
            guard byte(.status, walk) == 0, byte(.role, walk) == 0x01 else { return }
            let key = SetKey(controller: controller, handle: nil)
            if sets[key] != nil { enabled(key, false, frame: frame.number) }
            // Only the v2 event names the advertising set the connection came from.
            if let h = byte(.terminatedHandle, walk) {
                let extended = SetKey(controller: controller, handle: h)
                if sets[extended] != nil { enabled(extended, false, frame: frame.number) }
            }
        case .advertisingSetTerminated:
            guard let h = byte(.terminatedHandle, walk) else { return }
            let key = SetKey(controller: controller, handle: h)
            if sets[key] != nil { enabled(key, false, frame: frame.number) }
        default: break
        }
    }

    private func report(_ frame: CapturedFrame, _ walk: TreeWalk, _ range: Range<Int>, extended: Bool) {
        let address = walk.first(f[.address], in: range).flatMap(walk.address)
        let addressType = walk.first(f[.addressType], in: range).flatMap(walk.unsigned).map {
            UInt8(truncatingIfNeeded: $0)
        }
        let eventType: UInt16
        if extended {
            guard let t = walk.first(f[.extendedEventType], in: range).flatMap(walk.uint16) else { return }
            eventType = t
        } else {
            guard let t = walk.first(f[.eventType], in: range).flatMap(walk.unsigned) else { return }
            eventType = UInt16(truncatingIfNeeded: t)
        }
        let sid =
            extended
            ? walk.first(f[.sid], in: range).flatMap(walk.unsigned).map { UInt8(truncatingIfNeeded: $0) } : nil
        let (bytes, problem) = data(walk, length: walk.first(f[.reportDataLength], in: range), in: range)
        let key = ReportKey(
            controller: frame.controllerIndex,
            address: address,
            addressType: addressType,
            extended: extended,
            sid: sid,
            eventType: extended ? eventType & 0x1F : eventType
        )
        let limit = limits.dataBytes
        // Data status (bits 5–6 of the extended event type): 0 complete, 1 more to come,
        // 2 truncated by the controller.
        let status = extended ? eventType >> 5 & 0x03 : 0
        var join = joins[key] ?? AdvertJoin(frame: frame.number)
        join.append(bytes, frame: frame.number, limit: limit)
        if let problem { join.notes.append(problem) }
        if status == 1 && problem == nil {
            if joins[key] == nil {
                guard joins.count < limits.joins else {
                    join.notes.append("not joined: more than \(limits.joins) adverts were being joined at once")
                    received(key, join.finished(limit: limit))
                    return
                }
                joinOrder.append(key)
            }
            joins[key] = join
            return
        }
        if joins[key] != nil {
            joins[key] = nil
            joinOrder.removeAll { $0 == key }
        }
        if status == 1 {
            join.notes.append("incomplete: the report is malformed")
        } else if status >= 2 {
            join.notes.append("truncated by the controller (data status \(status)): the rest was not received")
        }
        received(key, join.finished(limit: limit))
    }

    /// Names of the LE Advertising Report event types.
    private static let legacyTypes: [UInt16: String] = [
        0x00: "ADV_IND", 0x01: "ADV_DIRECT_IND", 0x02: "ADV_SCAN_IND", 0x03: "ADV_NONCONN_IND", 0x04: "SCAN_RSP",
    ]
    /// Names of the extended event types with the legacy bit (Core Vol 4 Part E §7.7.65.13).
    private static let legacyExtendedTypes: [UInt16: String] = [
        0x13: "ADV_IND", 0x15: "ADV_DIRECT_IND", 0x12: "ADV_SCAN_IND", 0x10: "ADV_NONCONN_IND",
        0x1B: "SCAN_RSP to ADV_IND", 0x1A: "SCAN_RSP to ADV_SCAN_IND",
    ]

    private func received(_ key: ReportKey, _ join: AdvertJoin) {
        let extended = key.extended
        let type = key.eventType
        let scanResponse: Bool
        let connectable: Bool?
        let kind: RawAdvert.Kind
        var words: [String] = []
        if extended {
            scanResponse = type & 0x08 != 0
            kind = type & 0x10 != 0 ? .legacy : .extended
            if kind == .legacy {
                words.append(
                    Self.legacyExtendedTypes[type].map { "legacy \($0)" }
                        ?? "legacy, event type \(HexText.prefixed(UInt64(type), digits: 1))"
                )
            } else {
                for (bit, word) in [
                    (0x01, "connectable"), (0x02, "scannable"), (0x04, "directed"), (0x08, "scan response"),
                ]
                where type & UInt16(bit) != 0 {
                    words.append(word)
                }
                if words.isEmpty { words.append("non-connectable") }
            }
            words.append("SID \(key.sid.map(String.init) ?? "?")")
            connectable = scanResponse ? nil : type & 0x01 != 0
        } else {
            scanResponse = type == 0x04
            kind = .legacy
            words.append(Self.legacyTypes[type] ?? "event type \(HexText.prefixed(UInt64(type), digits: 1))")
            switch type {
            case 0x00, 0x01: connectable = true
            case 0x02, 0x03: connectable = false
            default: connectable = nil
            }
        }
        if join.pieces > 1 { words.append("\(join.pieces) reports joined") }
        words += join.notes
        let from = key.address.map { " from \($0)" } ?? ""
        let label =
            "\(join.frames), \(extended ? "extended advertising report" : "advertising report")\(from) ("
            + words.joined(separator: "; ") + ")"
        let advert = RawAdvert(
            label: label,
            kind: kind,
            advertisingData: scanResponse ? nil : join.bytes,
            scanResponseData: scanResponse ? join.bytes : nil,
            connectable: connectable
        )
        let entryKey = EntryKey(
            origin: "received \(key.address?.description ?? "-") \(key.addressType.map(String.init) ?? "-") "
                + "\(extended ? "ext" : "legacy") \(type)",
            kind: kind,
            advertising: advert.advertisingData,
            scanResponse: advert.scanResponseData,
            connectable: connectable,
            note: join.notes.joined(separator: "; ")
        )
        record(advert, entryKey, in: &receivedTally, limit: limits.receivedAdverts, countWord: "seen")
    }

}
