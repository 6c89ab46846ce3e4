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
    /// Inlinable, so that each module's call is specialized for its field set: every run
    /// registers some thirty sets at start-up, and the generic code took about 6M instructions
    /// more than the specialized loop.
    @inlinable
    public mutating func register<F: FieldSet>(_ type: F.Type) -> Fields<F> {
        let cases = F.allCases
        var descriptors: [FieldDescriptor] = []
        descriptors.reserveCapacity(cases.count)
        for c in cases {
            // Out of order or misnumbered: the general path sorts and says which.
            guard Int(c.rawValue) == descriptors.count else { return registerSorted(F.self) }
            descriptors.append(c.descriptor)
        }
        let (layer, base) = register(layer: F.layer, fields: descriptors)
        return Fields(layer: layer, base: base)
    }

    /// `register(_:)` for a field set whose cases are not declared in raw-value order, or whose
    /// raw values do not run 0, 1, 2…: the latter is a problem `build` reports.
    @usableFromInline
    mutating func registerSorted<F: FieldSet>(_ type: F.Type) -> Fields<F> {
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

    /// Adds a dissector that runs after every frame's dissection, on a reader of the frame's bytes
    /// (data source 0: what the tree's nodes of source 0 point at), to add fields derived from the
    /// whole frame and the capture state (for example the device a frame belongs to).
    /// Post-dissectors run in registration order.
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
        index.reserveCapacity(fields.count + aliases.count)
        var layerOfField: [UInt32] = []
        layerOfField.reserveCapacity(fields.count)
        var currentLayer: UInt32 = 0
        for (i, d) in fields.enumerated() {
            if d.kind == .layer { currentLayer = UInt32(i) }
            layerOfField.append(currentLayer)
            // One look-up a field: the first registration of a name keeps it.
            if let existing = index.updateValue(FieldID(UInt32(i)), forKey: d.abbrev) {
                index[d.abbrev] = existing
                problems.append(
                    .init(
                        .fieldRegisteredTwice,
                        "field \(d.abbrev) registered twice (by \(fieldOwners[Int(existing.rawValue)]) and \(fieldOwners[i]))"
                    )
                )
            }
            if d.kind != .layer && !d.abbrev.utf8.contains(0x2E) {
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
            // Taken out while it changes, so that its bindings are not copied for each key.
            guard var t = tables.removeValue(forKey: table) else {
                problems.append(
                    .init(.undeclaredTable, "\(binding.owner) binds to table \(table), which no module declares")
                )
                continue
            }
            defer { tables[table] = t }
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
        }
        guard problems.isEmpty else { throw RegistryError(issues: problems) }
        settleStatelessness()
        for (id, var t) in tables {
            if case .integer(let bits) = t.keyKind, bits <= 16, t.bindings.count < Int(UInt16.max) {
                // Up to the highest key bound: every key is then in range, and a key past it has
                // no binding (`DissectorTable.lookup`).
                let highest = t.bindings.keys.lazy.filter { !$0.isUUID && $0.high == 0 }.map(\.low).max() ?? 0
                var dense = [UInt16](repeating: 0, count: Int(min(highest, (1 << UInt64(bits)) - 1)) + 1)
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
