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
    public fileprivate(set) var bindings: [DissectorKey: Binding]
    /// For tables of small integer keys: `dense[key]` is 1 + the index in `denseBindings`, or 0.
    var dense: [UInt16]
    var denseBindings: [Binding]
}

/// Why registration failed: every problem found, in the order found.
public struct RegistryError: Error, Sendable, CustomStringConvertible {
    public let issues: [RegistryProblem]

    public init(issues: [RegistryProblem]) { self.issues = issues }

    /// The problems' messages, as shown to users.
    public var problems: [String] { issues.map(\.message) }
    /// The problems' codes, to compare in tests and tools.
    public var codes: [RegistryProblem.Code] { issues.map(\.code) }
    public var description: String { problems.joined(separator: "\n") }
}

/// One reason registration failed: a comparable code and the message shown.
public struct RegistryProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// A field set's raw values do not run 0, 1, 2…
        case fieldNumbering
        /// Two modules give one UUID different names.
        case uuidNamedTwice
        /// Two modules declare one table.
        case tableDeclaredTwice
        /// Two fields have one filter name.
        case fieldRegisteredTwice
        /// A field's name has no protocol prefix (`btatt.`).
        case fieldWithoutPrefix
        /// An alias names a field that no module registers.
        case aliasOfUnknownField
        /// An alias has the name of a field.
        case aliasClash
        /// A binding into a table no module declares.
        case undeclaredTable
        /// Two built-in modules (or two plugins) bind one key of a table.
        case duplicateKey
        /// A table's opcode rows are declared twice, or a row is out of range, given twice, or
        /// answers an opcode with no row (`RegistryBuilder.declareOpcodes`).
        case opcodeRows
        /// A key is given two different roles (`RegistryBuilder.declareRole`).
        case keyRoleTwice
        /// A binding's key is of another kind than its table's (a UUID in an integer table, say).
        case keyKindMismatch
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// Collects registrations, then checks and freezes them into a `DissectorRegistry`.
public struct RegistryBuilder: Sendable {
    private var fields: [FieldDescriptor] = []
    private var fieldOwners: [String] = []
    private var tables: [TableID: DissectorTable] = [:]
    /// Every table named so far (declared, bound into or handed off to), numbered in that order.
    private var slots = TableSlots()
    private var pendingBindings: [(table: TableID, key: DissectorKey, kind: TableKeyKind?, binding: Binding)] = []
    private var aliases: [(String, String, String)] = []
    private var postDissectors: [Binding] = []
    var problems: [RegistryProblem] = []
    private var uuidNames: [BluetoothUUID: String] = [:]
    private var opcodeTables: [TableID: OpcodeFacts] = [:]
    /// Declared key roles by table (`declareRole(_:table:key:)`).
    var keyRoles: [TableID: [UInt64: KeyRole]] = [:]
    /// The UUIDs a plugin named (a plugin's name replaces a module's).
    private var pluginNamed: Set<BluetoothUUID> = []
    /// The run's settings, which the registry carries for the dissectors.
    private var configuration = RegistryConfiguration()
    /// The module registering now; set by `build(modules:)`.
    public var currentModule = "core"
    /// Whether the module registering now is a plugin; set by `build(modules:plugins:)`.
    public private(set) var registeringPlugin = false

    public init() {}

    /// Registers a field set; its layer descriptor first, then its cases in raw-value order.
    public mutating func register<F: FieldSet>(_ type: F.Type) -> Fields<F> {
        let cases = Array(F.allCases).sorted { $0.rawValue < $1.rawValue }
        for (i, c) in cases.enumerated() where Int(c.rawValue) != i {
            problems.append(
                .init(.fieldNumbering, "\(F.self): raw values must run 0, 1, 2…; \(c) is \(c.rawValue), expected \(i)")
            )
        }
        let (layer, base) = register(layer: F.layer, fields: cases.map(\.descriptor))
        return Fields(layer: layer, base: base)
    }

    /// Registers fields made at run time (a plugin's): `layer`, then `fields` in order. The fields
    /// get consecutive ids from the returned `base`.
    public mutating func register(layer: FieldDescriptor, fields more: [FieldDescriptor]) -> (
        layer: FieldID, base: UInt32
    ) {
        let layerID = FieldID(UInt32(fields.count))
        fields.append(layer)
        fieldOwners.append(currentModule)
        let base = UInt32(fields.count)
        fields += more
        fieldOwners += Array(repeating: currentModule, count: more.count)
        return (layerID, base)
    }

    /// Names a UUID (a custom service, characteristic or descriptor) wherever it is shown.
    /// The assigned numbers name the SIG's own UUIDs; a name given here is shown first. A plugin's
    /// name replaces a module's, as its bindings do.
    public mutating func name(_ uuid: BluetoothUUID, _ name: String) {
        if registeringPlugin, uuidNames[uuid] != nil, !pluginNamed.contains(uuid) {
            uuidNames[uuid] = nil
        }
        if registeringPlugin { pluginNamed.insert(uuid) }
        if let existing = uuidNames[uuid], existing != name {
            problems.append(
                .init(.uuidNamedTwice, "UUID \(uuid) named twice (\"\(existing)\" and \"\(name)\" by \(currentModule))")
            )
            return
        }
        uuidNames[uuid] = name
    }

    /// Declares `table`, which this module owns: it dispatches into it, others bind into it.
    public mutating func declare<K>(_ table: Table<K>, _ description: String) {
        declareTable(table.id, description, keys: K.keyKind)
    }

    /// Declares a table this module owns, by name (for tables made at run time).
    public mutating func declareTable(_ id: TableID, _ description: String, keys: TableKeyKind) {
        if let existing = tables[id] {
            problems.append(
                .init(.tableDeclaredTwice, "table \(id) declared twice (by \(existing.owner) and \(currentModule))")
            )
            return
        }
        tables[id] = DissectorTable(
            id: id,
            slot: slots.slot(id),
            owner: currentModule,
            description: description,
            keyKind: keys,
            bindings: [:],
            dense: [],
            denseBindings: []
        )
    }

    /// Declares the opcode facts (`OpcodeFacts`) of the table `facts.table`, for
    /// `DissectorRegistry.opcodeFacts(_:)`: one declaration per table, with each opcode once.
    public mutating func declareOpcodes(_ facts: OpcodeFacts) {
        if opcodeTables[facts.table] != nil {
            problems.append(
                .init(.opcodeRows, "opcodes of table \(facts.table) declared twice (again by \(currentModule))")
            )
            return
        }
        problems += facts.problems().map { .init(.opcodeRows, $0) }
        opcodeTables[facts.table] = facts
    }

    /// A handoff into `table` for a dissector value that several bindings share (a module's
    /// field ids, say). It records no edge: each binding whose dissector uses it records its own
    /// with `BindingScope.handoff(into:)`, which returns the same handoff.
    public mutating func handoff<K>(into table: Table<K>) -> Handoff<K> {
        Handoff(table, slot: slots.slot(table.id))
    }

    /// Binds the dissector `make` builds to `key` in `table` (which may belong to another
    /// module). `make` gets the binding's scope: the handoffs the dissector may use
    /// (`BindingScope.handoff(into:)`) and whether it uses capture state
    /// (`BindingScope.usesCaptureState()`). From these the registry knows the layer graph, and a
    /// binding keeps no state when neither it nor any binding beneath it uses any: stateless PDUs
    /// may be decoded by another engine on another thread. `coOwners` names other modules whose
    /// fields the dissector adds (several plugins sharing one binding), so that skipping by field
    /// owner (`DissectionEngine.skipStateless`) sees them.
    public mutating func bind<K>(
        to table: Table<K>,
        key: K,
        label: String = "",
        coOwners: [String] = [],
        _ make: (inout BindingScope) -> any Dissector
    ) {
        bind(to: table.id, key: key.dissectorKey, kind: K.keyKind, label: label, coOwners: coOwners, make)
    }

    /// Binds `dissector`, which hands nothing off and uses no capture state, to `key` in `table`.
    public mutating func bind<K>(_ dissector: any Dissector, to table: Table<K>, key: K, label: String = "") {
        bind(to: table, key: key, label: label) { _ in dissector }
    }

    /// Binds `dissector`, which hands nothing off and uses no capture state, to the untyped `key`
    /// in `table`; the key's kind is checked against the table's when the registry freezes.
    public mutating func bind<K>(_ dissector: any Dissector, to table: Table<K>, key: DissectorKey, label: String = "")
    {
        bind(to: table.id, key: key, kind: nil, label: label, coOwners: []) { _ in dissector }
    }

    /// Binds `dissector`, which hands nothing off and uses no capture state, by table name and
    /// untyped key (a plugin's vendor opcode, say).
    public mutating func bind(_ dissector: any Dissector, to table: TableID, key: DissectorKey, label: String = "") {
        bind(to: table, key: key, kind: nil, label: label, coOwners: []) { _ in dissector }
    }

    /// Binds by table name and untyped key (for plugins, whose tables are named in files); the
    /// key's kind is checked against the table's when the registry freezes.
    public mutating func bind(
        to table: TableID,
        key: DissectorKey,
        label: String = "",
        coOwners: [String] = [],
        _ make: (inout BindingScope) -> any Dissector
    ) {
        bind(to: table, key: key, kind: nil, label: label, coOwners: coOwners, make)
    }

    private mutating func bind(
        to table: TableID,
        key: DissectorKey,
        kind: TableKeyKind?,
        label: String,
        coOwners: [String],
        _ make: (inout BindingScope) -> any Dissector
    ) {
        _ = slots.slot(table)
        var scope = BindingScope(slots: slots)
        let dissector = make(&scope)
        slots = scope.slots
        let binding = Binding(
            dissector: dissector,
            owner: currentModule,
            label: label,
            usesState: scope.usesState,
            edges: scope.edges,
            fromPlugin: registeringPlugin,
            coOwners: coOwners
        )
        pendingBindings.append((table, key, kind ?? (key.isUUID ? .uuid : nil), binding))
    }

    /// Adds a dissector that runs after every frame's dissection, on an empty reader, to add
    /// fields derived from the whole frame and the capture state (for example the device a frame
    /// belongs to). Post-dissectors run in registration order.
    public mutating func addPostDissector(_ dissector: any Dissector, label: String = "") {
        postDissectors.append(Binding(dissector: dissector, owner: currentModule, label: label))
    }

    /// Makes `alias` another filter name for the field `target`.
    public mutating func alias(_ alias: String, for target: String) {
        aliases.append((alias, target, currentModule))
    }

    /// Runs every module's registration, then checks and freezes the result. Every problem is
    /// reported, not only the first.
    ///
    /// Plugins register after the modules. A plugin's binding replaces a module's binding of the
    /// same key (the replaced one is kept as `Binding.shadowed` and listed in
    /// `DissectorRegistry.overrides`); two plugins binding the same key is a problem, as are two
    /// modules doing so.
    public static func build(
        modules: [any DissectorModule.Type],
        plugins: [any DissectorPlugin] = []
    ) throws(RegistryError) -> DissectorRegistry {
        try registering(modules: modules).build(plugins: plugins)
    }

    /// A builder holding the core fields and `modules`' registrations, not yet frozen: kept, it
    /// makes each registry with different plugins without registering the modules again.
    public static func registering(modules: [any DissectorModule.Type]) -> RegistryBuilder {
        var builder = RegistryBuilder()
        builder.currentModule = "core"
        CoreFieldsModule.register(&builder)
        for module in modules {
            builder.currentModule = module.name
            module.register(&builder)
        }
        return builder
    }

    /// Registers `plugins` in a copy of this builder and freezes it with `configuration`.
    public func build(
        plugins: [any DissectorPlugin] = [],
        configuration: RegistryConfiguration = RegistryConfiguration()
    ) throws(RegistryError) -> DissectorRegistry {
        var builder = self
        builder.configuration = configuration
        builder.registeringPlugin = true
        for plugin in plugins {
            builder.currentModule = plugin.name
            plugin.register(&builder)
        }
        return try builder.freeze()
    }

    /// The filter names of the fields registered so far.
    public var fieldNames: [String] { fields.map(\.abbrev) }

    /// The tables declared so far.
    public var tableNames: [TableID] { Array(tables.keys) }

    /// The module and label of the binding made so far for `key` in `table`, if any.
    public func binding(_ table: TableID, _ key: DissectorKey) -> (owner: String, label: String)? {
        pendingBindings.first { $0.table == table && $0.key == key }.map { ($0.binding.owner, $0.binding.label) }
    }

    /// A binding stays stateless only while every binding in the tables it dispatches into is:
    /// repeated until nothing changes (at most once per binding).
    private mutating func settleStatelessness() {
        var changed = true
        while changed {
            changed = false
            for (id, t) in tables {
                for (key, binding) in t.bindings where binding.keepsNoState {
                    let beneathStateful = binding.dispatchesInto.contains { inner in
                        tables[inner]?.bindings.values.contains { !$0.keepsNoState } ?? false
                    }
                    if beneathStateful {
                        tables[id]?.bindings[key] = binding.with(keepsNoState: false)
                        changed = true
                    }
                }
            }
        }
    }

    private mutating func freeze() throws(RegistryError) -> DissectorRegistry {
        var overrides: [BindingOverride] = []
        var index: [String: FieldID] = [:]
        var layerOfField: [UInt32] = []
        var currentLayer: UInt32 = 0
        for (i, d) in fields.enumerated() {
            if d.kind == .layer { currentLayer = UInt32(i) }
            layerOfField.append(currentLayer)
            if let existing = index[d.abbrev] {
                problems.append(
                    .init(
                        .fieldRegisteredTwice,
                        "field \(d.abbrev) registered twice (by \(fieldOwners[Int(existing.rawValue)]) and \(fieldOwners[i]))"
                    )
                )
            } else {
                index[d.abbrev] = FieldID(UInt32(i))
            }
            if d.kind != .layer && !d.abbrev.contains(".") {
                problems.append(.init(.fieldWithoutPrefix, "field \(d.abbrev) has no protocol prefix"))
            }
        }
        for (alias, target, owner) in aliases {
            guard let id = index[target] else {
                problems.append(
                    .init(.aliasOfUnknownField, "alias \(alias) (by \(owner)) names unknown field \(target)")
                )
                continue
            }
            if index[alias] != nil {
                problems.append(.init(.aliasClash, "alias \(alias) (by \(owner)) clashes with an existing field name"))
                continue
            }
            index[alias] = id
        }
        for (table, key, kind, binding) in pendingBindings {
            guard var t = tables[table] else {
                problems.append(
                    .init(.undeclaredTable, "\(binding.owner) binds to table \(table), which no module declares")
                )
                continue
            }
            if let kind, kind != t.keyKind {
                problems.append(
                    .init(
                        .keyKindMismatch,
                        "\(binding.owner) binds key \(key) of kind \(kind) to table \(table), whose keys are \(t.keyKind)"
                    )
                )
                continue
            }
            if let existing = t.bindings[key] {
                if existing.fromPlugin != binding.fromPlugin {
                    let (plugin, builtIn) = binding.fromPlugin ? (binding, existing) : (existing, binding)
                    t.bindings[key] = plugin.replacing(builtIn)
                    tables[table] = t
                    overrides.append(
                        BindingOverride(
                            table: table,
                            key: key,
                            plugin: plugin.owner,
                            builtIn: builtIn.owner,
                            builtInLabel: builtIn.label
                        )
                    )
                    continue
                }
                problems.append(
                    .init(
                        .duplicateKey,
                        "duplicate key \(key) in table \(table): bound by \(existing.owner) and by \(binding.owner)"
                    )
                )
                continue
            }
            t.bindings[key] = binding
            tables[table] = t
        }
        guard problems.isEmpty else { throw RegistryError(issues: problems) }
        settleStatelessness()
        for (id, var t) in tables {
            if case .integer(let bits) = t.keyKind, bits <= 16, t.bindings.count < Int(UInt16.max) {
                var dense = [UInt16](repeating: 0, count: 1 << Int(bits))
                var list: [Binding] = []
                for (k, b) in t.bindings where !k.isUUID && k.low < UInt64(dense.count) {
                    list.append(b)
                    dense[Int(k.low)] = UInt16(list.count)
                }
                t.dense = dense
                t.denseBindings = list
            }
            tables[id] = t
        }
        let postOwners = Set(postDissectors.map(\.owner))
        return DissectorRegistry(
            fields: fields,
            index: index,
            layerOfField: layerOfField,
            tables: tables,
            slots: slots,
            postDissectors: postDissectors,
            derived: fieldOwners.map { postOwners.contains($0) },
            fieldOwners: fieldOwners,
            uuidNames: uuidNames,
            opcodeTables: opcodeTables,
            keyRoles: keyRoles,
            configuration: configuration,
            overrides: overrides.sorted { ($0.table.name, $0.key.low) < ($1.table.name, $1.key.low) }
        )
    }
}

/// The frozen catalog of fields and tables, shared by the engine, the filter and the renderers.
public final class DissectorRegistry: Sendable {
    public let fields: [FieldDescriptor]
    /// Filter name (and alias) → field.
    public let index: [String: FieldID]
    /// For each field, the id of the layer it belongs to.
    let layerOfField: [UInt32]
    public let tables: [TableID: DissectorTable]
    /// Every table named at registration by its slot (nil for a name no module declared), and
    /// each name's slot.
    @usableFromInline let tablesBySlot: [DissectorTable?]
    let slotOf: [TableID: Int]
    /// The tables' dense key arrays, end to end: for a slot and a key below `denseCount[slot]`,
    /// `denseIndex[denseStart[slot] + key]` is 1 + the binding's index in `denseBindings` (from
    /// `bindingStart[slot]`), or 0. Dispatch reads them without copying a `DissectorTable` (and
    /// counting the references it holds).
    @usableFromInline let denseIndex: [UInt16]
    /// Unretained: `tables` keeps every binding alive for the registry's life, so dispatch reads
    /// one without counting a reference (`unretainedBinding(slot:_:)`).
    @usableFromInline let denseBindings: [Unmanaged<Binding>]
    /// Per entry of `denseBindings`: its `Binding.keepsNoState`, read without touching the binding.
    @usableFromInline let denseStateless: [Bool]
    /// Per entry of `denseBindings`: for a binding that uses no state itself but hands off, by a
    /// key at a fixed place, into a table with stateful bindings, that handoff (see
    /// `decodesWithoutState(_:_:_:)`).
    @usableFromInline let densePeek: [PeekEdge?]
    @usableFromInline let denseStart: [Int]
    @usableFromInline let denseCount: [Int]
    @usableFromInline let bindingStart: [Int]
    public let core: CoreFields
    /// Per field: true for layers (kept apart so that hot loops need not copy descriptors).
    public let isLayer: [Bool]
    /// Per field: the short protocol name of layers, empty otherwise.
    public let shortNames: [String]
    /// Dissectors run after every frame, in order.
    public let postDissectors: [Binding]
    /// Per field: true for the fields of modules that add them from a post-dissector (derived
    /// fields such as `device.*`). A run that shows and filters none of them can skip the
    /// post-dissectors.
    public let isDerived: [Bool]
    /// Per field: the module that registered it ("core" for the frame and expert fields).
    public let fieldOwners: [String]
    /// Names given to UUIDs by modules and plugins (`RegistryBuilder.name(_:_:)`).
    public let uuidNames: [BluetoothUUID: String]
    /// The run's settings (`RegistryConfiguration`), for the dissectors to read.
    public let configuration: RegistryConfiguration
    /// The built-in bindings plugins replaced.
    public let overrides: [BindingOverride]
    /// Opcode facts by table (`opcodeFacts(_:)`).
    let opcodeTables: [TableID: OpcodeFacts]
    /// Key roles by table (`roles(in:)`).
    let keyRoles: [TableID: [UInt64: KeyRole]]

    init(
        fields: [FieldDescriptor],
        index: [String: FieldID],
        layerOfField: [UInt32],
        tables: [TableID: DissectorTable],
        slots: TableSlots,
        postDissectors: [Binding],
        derived: [Bool],
        fieldOwners: [String],
        uuidNames: [BluetoothUUID: String],
        opcodeTables: [TableID: OpcodeFacts] = [:],
        keyRoles: [TableID: [UInt64: KeyRole]] = [:],
        configuration: RegistryConfiguration,
        overrides: [BindingOverride]
    ) {
        self.opcodeTables = opcodeTables
        self.keyRoles = keyRoles
        self.uuidNames = uuidNames
        self.configuration = configuration
        self.overrides = overrides
        self.postDissectors = postDissectors
        self.isDerived = derived
        self.fieldOwners = fieldOwners
        self.fields = fields
        self.index = index
        self.layerOfField = layerOfField
        self.tables = tables
        slotOf = slots.byID
        let bySlot = slots.ids.map { tables[$0] }
        tablesBySlot = bySlot
        var denseIndex: [UInt16] = []
        var denseBindings: [Unmanaged<Binding>] = []
        var denseStart = [Int](repeating: 0, count: bySlot.count)
        var denseCount = [Int](repeating: 0, count: bySlot.count)
        var bindingStart = [Int](repeating: 0, count: bySlot.count)
        for (slot, table) in bySlot.enumerated() {
            guard let table else { continue }
            denseStart[slot] = denseIndex.count
            denseCount[slot] = table.dense.count
            bindingStart[slot] = denseBindings.count
            denseIndex += table.dense
            denseBindings += table.denseBindings.map { Unmanaged.passUnretained($0) }
        }
        self.denseIndex = denseIndex
        self.denseStateless = denseBindings.map { $0.takeUnretainedValue().keepsNoState }
        self.densePeek = denseBindings.map { PeekEdge.of($0.takeUnretainedValue(), tables) }
        self.denseBindings = denseBindings
        self.denseStart = denseStart
        self.denseCount = denseCount
        self.bindingStart = bindingStart
        // The core set is registered first, so its layer is field 0.
        self.core = CoreFields(layer: FieldID(0), base: 1)
        self.isLayer = fields.map { $0.kind == .layer }
        self.shortNames = fields.map { d in
            d.kind == .layer ? (d.short.isEmpty ? d.abbrev.uppercased() : d.short) : ""
        }
    }

    @inlinable
    public func descriptor(_ id: FieldID) -> FieldDescriptor { fields[Int(id.rawValue)] }

    public func field(named name: String) -> FieldID? { index[name] }

    /// True when `id` is a derived field (see `isDerived`).
    public func derived(_ id: FieldID) -> Bool {
        Int(id.rawValue) < isDerived.count && isDerived[Int(id.rawValue)]
    }

    /// The module that registered `id`.
    public func owner(of id: FieldID) -> String {
        Int(id.rawValue) < fieldOwners.count ? fieldOwners[Int(id.rawValue)] : ""
    }

    /// The modules whose fields `binding` can add: its own, and through the tables it dispatches
    /// into, those of every binding beneath it.
    public func ownersBeneath(_ binding: Binding) -> Set<String> {
        var owners: Set<String> = [binding.owner]
        owners.formUnion(binding.coOwners)
        var seen = Set<TableID>()
        var pending = binding.dispatchesInto
        while let id = pending.popLast() {
            guard seen.insert(id).inserted, let table = tables[id] else { continue }
            for inner in table.bindings.values {
                owners.insert(inner.owner)
                owners.formUnion(inner.coOwners)
                pending += inner.dispatchesInto
            }
        }
        return owners
    }

    /// The layer a field belongs to.
    public func layer(of id: FieldID) -> FieldID { FieldID(layerOfField[Int(id.rawValue)]) }

    /// The slot of the table named `table`, if any module named it.
    public func slot(of table: TableID) -> Int? { slotOf[table] }

    /// The handoff into `table` (for the engine's own tables, and tools that feed a table).
    public func handoff<K>(into table: Table<K>) -> Handoff<K>? {
        slotOf[table.id].map { Handoff(table, slot: $0) }
    }

    /// The dissector bound to `key` in `table`, if any.
    public func binding(_ table: TableID, _ key: DissectorKey) -> Binding? {
        guard let slot = slotOf[table] else { return nil }
        return unretainedBinding(slot: slot, key)?.takeUnretainedValue()
    }

    /// The dissector bound to `key` in `table`, if any.
    public func binding<K>(_ table: Table<K>, _ key: K) -> Binding? { binding(table.id, key.dissectorKey) }

    /// The dissector bound to `key` in `table`, if any (an untyped key, as listings hold them).
    public func binding<K>(_ table: Table<K>, _ key: DissectorKey) -> Binding? { binding(table.id, key) }

    /// For an integer key within its table's dense range: the binding's position in
    /// `denseBindings`, or -1 when the key has none. Nil outside the dense range.
    @inlinable
    func densePosition(slot: Int, _ key: DissectorKey) -> Int? {
        guard slot >= 0, slot < denseCount.count, !key.isUUID, key.high == 0, key.low < UInt64(denseCount[slot])
        else { return nil }
        let i = Int(denseIndex[denseStart[slot] &+ Int(key.low)])
        return i == 0 ? -1 : bindingStart[slot] &+ i &- 1
    }

    /// The binding of `key` in the table at `slot`, unretained, for the dispatch path: the
    /// registry keeps it alive, so a caller that holds the registry reads it with
    /// `_withUnsafeGuaranteedRef` without counting a reference. Nil when nothing is bound.
    @inlinable
    public func unretainedBinding(slot: Int, _ key: DissectorKey) -> Unmanaged<Binding>? {
        if let i = densePosition(slot: slot, key) { return i < 0 ? nil : denseBindings[i] }
        guard slot >= 0, slot < tablesBySlot.count, let b = tablesBySlot[slot]?.lookup(key) else { return nil }
        return Unmanaged.passUnretained(b)
    }

    /// Whether anything is bound to `key` in `table`.
    public func isBound<K>(_ table: Handoff<K>, _ key: K) -> Bool {
        unretainedBinding(slot: table.slot, key.dissectorKey) != nil
    }

    /// Whether decoding `bytes` with the binding of `key` in the table at `slot` neither reads
    /// nor changes capture state, so that any engine may decode them: the binding keeps no
    /// state, or it uses none itself and hands off, by a key at a fixed place in `bytes`, to a
    /// binding that (by the same rule) does not. Follows the layer graph without decoding; false
    /// when unsure (nothing bound, bytes too short). Cheap: the parallel reader asks per frame.
    @inlinable
    public func decodesWithoutState(slot: Int, _ key: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var slot = slot
        var key = key
        var bytes = bytes
        for _ in 0..<Self.maximumPeekDepth {
            guard let i = densePosition(slot: slot, DissectorKey(key)), i >= 0 else { return false }
            if denseStateless[i] { return true }
            guard let peek = densePeek[i], let next = peek.position.key(in: bytes),
                peek.position.payload <= bytes.count
            else { return false }
            slot = peek.slot
            key = next
            bytes = UnsafeBufferPointer(rebasing: bytes[peek.position.payload...])
        }
        return false
    }

    /// The most handoffs `decodesWithoutState` follows.
    public static let maximumPeekDepth = 8
}

/// A handoff that `DissectorRegistry.decodesWithoutState` follows: into the table at `slot`, by
/// the key at `position`.
public struct PeekEdge: Sendable {
    @usableFromInline let slot: Int
    @usableFromInline let position: KeyPosition

    /// For `binding`: the one handoff with a key position into a table with stateful bindings,
    /// when the binding uses no state itself and its other handoffs lead only to stateless ones.
    static func of(_ binding: Binding, _ tables: [TableID: DissectorTable]) -> PeekEdge? {
        guard !binding.usesState, !binding.keepsNoState else { return nil }
        let stateful = binding.edges.filter { edge in
            tables[edge.table]?.bindings.values.contains { !$0.keepsNoState } ?? false
        }
        guard stateful.count == 1, let edge = stateful.first, let position = edge.position else { return nil }
        return PeekEdge(slot: edge.slot, position: position)
    }
}

extension DissectorTable {
    @usableFromInline
    func lookup(_ key: DissectorKey) -> Binding? {
        if !key.isUUID, key.high == 0, key.low < UInt64(dense.count) {
            let slot = Int(dense[Int(key.low)])
            return slot == 0 ? nil : denseBindings[slot - 1]
        }
        return bindings[key]
    }
}

extension DissectorRegistry {
    /// The name a module or plugin gave `uuid`, if any.
    @inlinable
    public func name(of uuid: BluetoothUUID) -> String? {
        uuidNames.isEmpty ? nil : uuidNames[uuid]
    }
}
