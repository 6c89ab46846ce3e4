/// A group of dissectors and fields that registers itself: its fields, its own tables, and its
/// bindings into other modules' tables.
public protocol DissectorModule {
    static var name: String { get }
    static func register(_ registry: inout RegistryBuilder)
}

/// A module made at run time, such as a profile plugin read from a file: it registers through the
/// same `RegistryBuilder` as the built-in modules, but as a value. Its bindings take precedence
/// over the built-in modules' (see `RegistryBuilder.build(modules:plugins:)`).
public protocol DissectorPlugin: Sendable {
    /// The module name fields and bindings are owned by (the plugin's namespace).
    var name: String { get }
    func register(_ registry: inout RegistryBuilder)
}

/// A plugin binding that took the place of a built-in one, for listings.
public struct BindingOverride: Sendable {
    public let table: TableID
    public let key: DissectorKey
    /// The plugin whose binding is used.
    public let plugin: String
    /// The built-in module whose binding it replaced, and that binding's label.
    public let builtIn: String
    public let builtInLabel: String
}

/// A binding in a table, with the module that made it. A class, so that looking one up on every
/// dispatch costs no copy of the dissector and two strings (and the registry keeps it alive, so
/// dispatch reads it unretained).
public final class Binding: Sendable {
    public let dissector: any Dissector
    public let owner: String
    public let label: String
    /// True when the dissector, and every dissector beneath it in the layer graph, neither reads
    /// nor changes capture state (constant configuration aside): any engine may then decode the
    /// PDUs it is bound to, in any order, with the same result. The parallel reader relies on it.
    /// Derived by the registry from the bindings' scopes (`BindingScope`).
    public let keepsNoState: Bool
    /// Whether the dissector itself asked for capture state (`BindingScope.usesCaptureState`).
    public let usesState: Bool
    /// The tables the dissector hands off into (`BindingScope.handoff(into:)`).
    let edges: [HandoffEdge]
    /// True for a plugin's binding (`DissectorPlugin`).
    public let fromPlugin: Bool
    /// For a plugin's binding that replaced a built-in one: that binding, which the plugin's
    /// dissector may still run for PDUs it does not claim (a manufacturer-data prefix that does
    /// not match, for example).
    public let shadowed: Binding?
    /// Other modules whose fields the dissector adds: the plugins sharing one binding, the module
    /// of the binding it replaced (for `DissectorRegistry.ownersBeneath`).
    let coOwners: [String]

    init(
        dissector: any Dissector,
        owner: String,
        label: String,
        usesState: Bool = true,
        keepsNoState: Bool? = nil,
        edges: [HandoffEdge] = [],
        fromPlugin: Bool = false,
        shadowed: Binding? = nil,
        coOwners: [String] = []
    ) {
        self.dissector = dissector
        self.owner = owner
        self.label = label
        self.usesState = usesState
        self.keepsNoState = keepsNoState ?? !usesState
        self.edges = edges
        self.fromPlugin = fromPlugin
        self.shadowed = shadowed
        self.coOwners = coOwners
    }

    /// The tables the dissector hands off into.
    var dispatchesInto: [TableID] { edges.map(\.table) }

    func with(keepsNoState: Bool) -> Binding {
        keepsNoState == self.keepsNoState
            ? self
            : Binding(
                dissector: dissector,
                owner: owner,
                label: label,
                usesState: usesState,
                keepsNoState: keepsNoState,
                edges: edges,
                fromPlugin: fromPlugin,
                shadowed: shadowed,
                coOwners: coOwners
            )
    }

    /// This plugin binding in place of the module binding `builtIn`, which it may still run: it
    /// keeps no state only if both keep none, and reaches what both reach.
    func replacing(_ builtIn: Binding) -> Binding {
        Binding(
            dissector: dissector,
            owner: owner,
            label: label,
            usesState: usesState || builtIn.usesState,
            keepsNoState: keepsNoState && builtIn.keepsNoState,
            edges: edges + builtIn.edges,
            fromPlugin: true,
            shadowed: builtIn,
            coOwners: coOwners + [builtIn.owner] + builtIn.coOwners
        )
    }
}

/// A dissector table after freezing.
public struct DissectorTable: Sendable {
    public let id: TableID
    /// The table's position in `DissectorRegistry.tablesBySlot`, given when it was first named.
    public let slot: Int
    public let owner: String
    public let description: String
    public let keyKind: TableKeyKind
    public internal(set) var bindings: [DissectorKey: Binding]
    /// For tables of small integer keys: `dense[key]` is 1 + the index in `denseBindings`, or 0.
    var dense: [UInt16]
    var denseBindings: [Binding]
}

extension DissectorTable {
    @usableFromInline
    func lookup(_ key: DissectorKey) -> Binding? {
        // A dense table holds every integer key it binds: one past its range has none.
        if !dense.isEmpty, !key.isUUID {
            guard key.high == 0, key.low < UInt64(dense.count) else { return nil }
            let slot = Int(dense[Int(key.low)])
            return slot == 0 ? nil : denseBindings[slot - 1]
        }
        return bindings[key]
    }
}
