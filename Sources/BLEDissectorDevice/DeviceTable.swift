import BLEInspectCore

/// Address types as `device.addr_type` gives them.
enum AddressType {
    static let `public`: UInt8 = 0
    static let random: UInt8 = 1
    static let unknown: UInt8 = 0xFF

    /// The type of an HCI LE address type value: 0 public, 1 random, 2 public identity and
    /// 3 random (static) identity (the controller resolved the address), 0xFF anonymous.
    static func fromHCI(_ value: UInt8) -> UInt8 {
        switch value {
        case 0, 2: `public`
        case 1, 3: random
        default: unknown
        }
    }
}

/// How good a name is; a name replaces another of the same or a lower rank.
enum NameRank {
    static let none: UInt8 = 0
    /// Shortened Local Name (AD type 0x08).
    static let shortened: UInt8 = 1
    /// Complete Local Name (AD type 0x09).
    static let complete: UInt8 = 2
    /// The GATT Device Name characteristic read from the device, or a Remote Name Request result.
    static let fromDevice: UInt8 = 3
}

/// An address with its type (`AddressType`; `AddressType.unknown` when no frame said).
struct TypedAddress: Equatable {
    var address: BDAddr
    var type: UInt8
}

/// One remote device: an address seen over the air (or an identity address it was linked to).
/// Plain bits (its name is kept beside it, `DeviceTable.name(_:)`), so reading a record copies
/// no reference.
struct DeviceRecord: BitwiseCopyable {
    var address: BDAddr
    var addressType: UInt8
    var nameRank: UInt8
    /// How many of the known IRKs the address was checked against (`IdentityResolver`).
    var checkedKeys: UInt16
    /// The index of the IRK that resolved the address (`IdentityResolver.keys`); -1 for none.
    var resolvedBy: Int16
    var firstSeen: Int
    /// The identity address this address was linked to (itself for a device whose identity
    /// address is the one it uses).
    var identity: TypedAddress?
    /// Least-recently-used list: slot indices, -1 for none.
    var newer: Int32
    var older: Int32
}

/// The devices seen in a capture, at most `capacity`, the least recently seen forgotten first.
/// Lookups, updates and evictions are O(1): a dictionary from address to slot, and the slots
/// linked in order of use.
struct DeviceTable {
    let capacity: Int
    private(set) var records: [DeviceRecord] = []
    /// Each record's name, by slot.
    private var names: [String?] = []
    private var slots: [BDAddr: Int32] = [:]
    private var newest: Int32 = -1
    private var oldest: Int32 = -1
    /// The slot `touch` returned last (its address is checked before use).
    private var lastSlot: Int32 = -1
    /// How many devices were forgotten to make room.
    private(set) var evictions = 0

    init(capacity: Int) {
        self.capacity = max(2, capacity)
    }

    var count: Int { slots.count }

    func slot(of address: BDAddr) -> Int32? { slots[address] }

    /// The name of the device in `slot`.
    func name(_ slot: Int32) -> String? { names[Int(slot)] }

    subscript(slot: Int32) -> DeviceRecord {
        get { records[Int(slot)] }
        set { records[Int(slot)] = newValue }
    }

    /// The slot of `address`, made now (first seen in `frame`) when the address is new; marked as
    /// the most recently used. `evicted` is the address forgotten to make room, if any.
    mutating func touch(_ address: BDAddr, type: UInt8, frame: Int) -> (slot: Int32, evicted: BDAddr?) {
        // Frames of one device come in runs: the last slot is checked before hashing.
        if lastSlot >= 0, Int(lastSlot) < records.count, records[Int(lastSlot)].address == address {
            if type != AddressType.unknown { records[Int(lastSlot)].addressType = type }
            moveToNewest(lastSlot)
            return (lastSlot, nil)
        }
        if let s = slots[address] {
            lastSlot = s
            if type != AddressType.unknown { records[Int(s)].addressType = type }
            moveToNewest(s)
            return (s, nil)
        }
        let fresh = DeviceRecord(
            address: address,
            addressType: type,
            nameRank: NameRank.none,
            checkedKeys: 0,
            resolvedBy: -1,
            firstSeen: frame,
            identity: nil,
            newer: -1,
            older: -1
        )
        var evicted: BDAddr? = nil
        let s: Int32
        if records.count < capacity {
            s = Int32(records.count)
            records.append(fresh)
            names.append(nil)
        } else {
            s = oldest
            evicted = records[Int(s)].address
            unlink(s)
            slots[records[Int(s)].address] = nil
            records[Int(s)] = fresh
            names[Int(s)] = nil
            evictions += 1
        }
        slots[address] = s
        pushNewest(s)
        lastSlot = s
        return (s, evicted)
    }

    /// Marks the device in `slot` as the most recently used.
    mutating func markUsed(_ slot: Int32) { moveToNewest(slot) }

    /// Learns `name` of rank `rank` for the device in `slot`: kept when it is at least as good as
    /// the one known.
    mutating func learn(name: String, rank: UInt8, slot: Int32) {
        let i = Int(slot)
        guard rank >= records[i].nameRank, !name.isEmpty else { return }
        if records[i].nameRank == rank && names[i] == name { return }
        names[i] = name
        records[i].nameRank = rank
    }

    private mutating func unlink(_ s: Int32) {
        let r = records[Int(s)]
        if r.newer >= 0 { records[Int(r.newer)].older = r.older } else { newest = r.older }
        if r.older >= 0 { records[Int(r.older)].newer = r.newer } else { oldest = r.newer }
        records[Int(s)].newer = -1
        records[Int(s)].older = -1
    }

    private mutating func pushNewest(_ s: Int32) {
        records[Int(s)].older = newest
        records[Int(s)].newer = -1
        if newest >= 0 { records[Int(newest)].newer = s }
        newest = s
        if oldest < 0 { oldest = s }
    }

    private mutating func moveToNewest(_ s: Int32) {
        guard newest != s else { return }
        unlink(s)
        pushNewest(s)
    }

    /// Addresses from the most to the least recently used (for tests).
    func addressesByRecency() -> [BDAddr] {
        var out: [BDAddr] = []
        var s = newest
        while s >= 0, out.count <= records.count {
            out.append(records[Int(s)].address)
            s = records[Int(s)].older
        }
        return out
    }
}
