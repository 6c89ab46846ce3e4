/// A connection's identity: the controller and the connection handle.
public struct ConnectionKey: Hashable, Sendable {
    public let controller: UInt16
    public let handle: UInt16
    public init(controller: UInt16, handle: UInt16) {
        self.controller = controller
        self.handle = handle
    }
}

/// What is known of a connection from the HCI events that created it.
public struct ConnectionInfo: Sendable {
    public var peer: BDAddr
    public var peerAddressType: UInt8
    /// 0 central, 1 peripheral (the local controller's role).
    public var role: UInt8
    public var openedInFrame: Int

    public init(peer: BDAddr, peerAddressType: UInt8, role: UInt8, openedInFrame: Int) {
        self.peer = peer
        self.peerAddressType = peerAddressType
        self.role = role
        self.openedInFrame = openedInFrame
    }
}

/// Module state that belongs to connections and is dropped when one closes.
public protocol ConnectionScopedState: AnyObject {
    func connectionClosed(_ key: ConnectionKey)
}

/// Values an engine makes once from the registry and its configuration alone, never from frames
/// (a lookup table the configuration extends, say): any dissector may use them, whether or not
/// its binding uses capture state, since every engine makes the same.
public struct ConstantStore {
    let state: CaptureState

    /// The value of type `T`, made on first use.
    public func value<T: AnyObject>(_ type: T.Type, make: () -> T) -> T { state.constant(type, make: make) }
}

/// Everything learned across a capture: the connection table and each module's own state.
/// One per capture; no globals.
public final class CaptureState {
    /// Open connections, from connection-complete events until disconnection.
    public private(set) var connections: [ConnectionKey: ConnectionInfo] = [:]
    /// Each module's state object, found by a scan: there are a dozen, and comparing a dozen
    /// identifiers costs less than hashing one (this runs several times for every frame). Kept in
    /// memory of their own, holding a reference each (released in `deinit`), so that a scan
    /// counts no reference to an array and finding a state counts none to it
    /// (`unretainedModule`).
    @usableFromInline let moduleStates = UnsafeMutablePointer<(type: ObjectIdentifier, state: Unmanaged<AnyObject>)>
        .allocate(capacity: CaptureState.maximumModules)
    @usableFromInline var moduleCount = 0
    /// The most module state types: each is a type in the code (one per module or plugin
    /// kind), never something a capture makes.
    public static let maximumModules = 64
    private var scoped: [any ConnectionScopedState] = []

    /// The most connections tracked at once; older ones are forgotten past it.
    public static let maximumConnections = 4096

    public init() {}

    deinit {
        for i in 0..<moduleCount { moduleStates[i].state.release() }
        moduleStates.deallocate()
    }

    /// Values made from configuration alone, per engine (`ConstantStore`).
    private var constants: [ObjectIdentifier: AnyObject] = [:]

    /// The value of type `T` made from configuration alone, made on first use.
    public func constant<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        let key = ObjectIdentifier(type)
        if let existing = constants[key] { return unsafeDowncast(existing, to: T.self) }
        let created = make()
        constants[key] = created
        return created
    }

    /// The state object of type `T`, made on first use.
    public func module<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        unretainedModule(type, make: make).takeUnretainedValue()
    }

    /// The state object of type `T`, made on first use, without counting a reference to it: for
    /// a dissector that holds it only while it decodes one PDU (`unowned(unsafe)`). A module's
    /// state lives as long as this capture state, so such a reference stays valid for the frame.
    @inlinable
    public func unretainedModule<T: AnyObject>(_ type: T.Type, make: () -> T) -> Unmanaged<T> {
        let key = ObjectIdentifier(type)
        // Only a `T` is ever stored under `ObjectIdentifier(T.self)`, so the cast cannot fail.
        for i in 0..<moduleCount where moduleStates[i].type == key {
            return Unmanaged<T>.fromOpaque(moduleStates[i].state.toOpaque())
        }
        return addModule(type, make: make)
    }

    @usableFromInline
    func addModule<T: AnyObject>(_ type: T.Type, make: () -> T) -> Unmanaged<T> {
        let key = ObjectIdentifier(type)
        precondition(moduleCount < Self.maximumModules, "more than \(Self.maximumModules) module state types")
        let created = make()
        (moduleStates + moduleCount).initialize(to: (key, Unmanaged<AnyObject>.passRetained(created)))
        moduleCount += 1
        if let s = created as? any ConnectionScopedState { scoped.append(s) }
        return Unmanaged.passUnretained(created)
    }

    public func openConnection(_ key: ConnectionKey, _ info: ConnectionInfo) {
        if connections[key] != nil { closeConnection(key) }
        if connections.count >= Self.maximumConnections,
            let oldest = connections.min(by: { $0.value.openedInFrame < $1.value.openedInFrame })
        {
            closeConnection(oldest.key)
        }
        connections[key] = info
    }

    public func closeConnection(_ key: ConnectionKey) {
        connections[key] = nil
        for s in scoped { s.connectionClosed(key) }
    }
}
