/// Fields of other modules that a reader outside them (a view, the device tracker, the advert
/// checker) looks up by name once, before the first frame, each under a role of the reader's own:
/// the one way bleinspect finds fields by name. After that, a node's role is one array index, and
/// a role's field id a short scan of the roles (no hashing, no names).
///
/// ```swift
/// enum Field: String, CaseIterable { case opcode = "btatt.opcode", handle = "btatt.handle" }
/// let f = FieldLookup<Field>(registry)
/// switch f.role(of: node.field) { case .opcode: …; case .handle: …; case nil: break }
/// ```
public struct FieldLookup<Role: Equatable> {
    /// Per field id: the role of the field, nil for fields the reader does not read.
    @usableFromInline let rolesByField: [Role?]
    /// Per field id: the position of the field's role in `roles`, or -1 (for `firstNodes`).
    @usableFromInline let positions: [Int16]
    /// The roles, in the order given; `ids[k]` is the first field found for `roles[k]`.
    @usableFromInline let roles: [Role]
    @usableFromInline let ids: [FieldID]
    /// Names the registry lacks. A view refuses to run with any (a renamed field then fails the
    /// tests); the device tracker does without them.
    public let missing: [String]

    /// The id no node has: what a role without a field in the registry looks up as.
    public static var absent: FieldID { FieldID(UInt32.max) }

    /// Looks up each name of `names` for its role. With `canonicalOnly`, an alias does not count
    /// (only the name a field was registered under).
    public init(_ registry: DissectorRegistry, names: [(String, Role)], canonicalOnly: Bool = false) {
        var rolesByField = [Role?](repeating: nil, count: registry.fields.count)
        var positions = [Int16](repeating: -1, count: registry.fields.count)
        var roles: [Role] = []
        var ids: [FieldID] = []
        var missing: [String] = []
        for (name, role) in names {
            var position = roles.firstIndex(of: role) ?? -1
            if position < 0 {
                position = roles.count
                roles.append(role)
                ids.append(Self.absent)
            }
            guard let id = registry.field(named: name), !canonicalOnly || registry.descriptor(id).abbrev == name,
                Int(id.rawValue) < rolesByField.count
            else {
                missing.append(name)
                continue
            }
            rolesByField[Int(id.rawValue)] = role
            positions[Int(id.rawValue)] = Int16(truncatingIfNeeded: position)
            if ids[position] == Self.absent { ids[position] = id }
        }
        self.rolesByField = rolesByField
        self.positions = positions
        self.roles = roles
        self.ids = ids
        self.missing = missing
    }

    /// The role of field `id`, nil when the reader does not read it.
    @inlinable
    public func role(of id: FieldID) -> Role? {
        let i = Int(id.rawValue)
        return i < rolesByField.count ? rolesByField[i] : nil
    }

    /// The position of `role` among the roles (its `firstNodes` slot), -1 when it has none.
    @inlinable
    public func position(_ role: Role) -> Int { roles.firstIndex(of: role) ?? -1 }

    /// The field of `role`; `absent` when the registry has none.
    @inlinable
    public subscript(_ role: Role) -> FieldID {
        let p = position(role)
        return p >= 0 ? ids[p] : Self.absent
    }

    /// The first node of each role in `nodes`, found in one pass, into `firsts` (by position; -1
    /// for a role without a node).
    public func firstNodes(_ nodes: UnsafeBufferPointer<FieldNode>, into firsts: inout [Int32]) {
        let count = roles.count
        if firsts.count != count { firsts = [Int32](repeating: -1, count: count) }
        for k in 0..<count { firsts[k] = -1 }
        let table = positions
        for i in 0..<nodes.count {
            let raw = Int(nodes[i].field.rawValue)
            guard raw < table.count else { continue }
            let p = Int(table[raw])
            if p >= 0 && firsts[p] < 0 { firsts[p] = Int32(truncatingIfNeeded: i) }
        }
    }

    /// The node `firstNodes` found for `role`, nil when the frame has none. Inlinable, so that
    /// callers get it specialized for their roles: generic, its search for the role's position
    /// cost a call through the type's witnesses for every role it passed.
    @inlinable
    public func node(_ role: Role, in firsts: [Int32]) -> Int? {
        let p = position(role)
        guard p >= 0, p < firsts.count, firsts[p] >= 0 else { return nil }
        return Int(firsts[p])
    }
}

extension FieldLookup where Role: CaseIterable & RawRepresentable<String> {
    /// Each case's raw value is its field's name.
    public init(_ registry: DissectorRegistry) {
        self.init(registry, names: Role.allCases.map { ($0.rawValue, $0) })
    }
}
