/// What one key of a dissector table means to the views that follow a procedure across frames
/// (advertising sets, connections). The module that binds the key declares its role
/// (`RegistryBuilder.declareRole(_:table:key:)`), next to its own opcode facts, so that a view
/// asks the registry (`DissectorRegistry.keys(in:)`) instead of keeping an opcode list of its own.
public enum KeyRole: Sendable, Hashable {
    /// The event that opens a connection (LE Connection Complete, LE Enhanced Connection
    /// Complete v1 and v2).
    case connectionComplete
    /// An advertising report event; `extended` for the extended form.
    case advertisingReport(extended: Bool)
    /// The controller stopped an advertising set (LE Advertising Set Terminated).
    case advertisingSetTerminated
    /// The host sets an advertising set's parameters: the legacy set, or an extended one.
    case advertisingParameters(extended: Bool)
    /// The host sets advertising data or scan response data, of the legacy set or an extended one.
    case advertisingData(scanResponse: Bool, extended: Bool)
    /// The host enables or disables advertising: the legacy set, or the extended sets it lists.
    case advertisingEnable(extended: Bool)
    /// The host removes one extended advertising set.
    case removeAdvertisingSet
    /// The host removes every extended advertising set.
    case clearAdvertisingSets
    /// The host resets the controller.
    case controllerReset
}

extension RegistryBuilder {
    /// Declares that `key` of `table` plays `role` (see `KeyRole`). A key has at most one role.
    public mutating func declareRole(_ role: KeyRole, table: TableID, key: UInt64) {
        if let earlier = keyRoles[table]?[key], earlier != role {
            problems.append(
                .init(
                    .keyRoleTwice,
                    "key 0x\(String(key, radix: 16, uppercase: true)) of table \(table) given two roles (again by \(currentModule))"
                )
            )
            return
        }
        keyRoles[table, default: [:]][key] = role
    }
}

extension RegistryBuilder {
    /// Declares that `key` of `table` plays `role`.
    public mutating func declareRole<K: BinaryInteger & TableKey>(_ role: KeyRole, table: Table<K>, key: K) {
        declareRole(role, table: table.id, key: UInt64(key))
    }
}

extension DissectorRegistry {
    /// The roles declared for `table`'s keys, by key.
    public func roles<K>(in table: Table<K>) -> [UInt64: KeyRole] { roles(in: table.id) }

    /// The keys of `table` declared to play `role`.
    public func keys<K>(in table: Table<K>, playing role: KeyRole) -> Set<UInt64> {
        keys(in: table.id, playing: role)
    }

    /// The roles declared for `table`'s integer keys, by key (empty when none are).
    public func roles(in table: TableID) -> [UInt64: KeyRole] { keyRoles[table] ?? [:] }

    /// The keys of `table` declared to play `role`.
    public func keys(in table: TableID, playing role: KeyRole) -> Set<UInt64> {
        Set(roles(in: table).filter { $0.value == role }.keys)
    }
}
