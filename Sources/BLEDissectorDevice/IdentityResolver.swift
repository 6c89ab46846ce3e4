import BLECrypto
public import BLEInspectCore
public import BLEKeys

extension DeviceModule {
    /// Identity resolving keys given to the run (`--keys`): a resolvable private address the
    /// tracker sees is linked to the identity address of the key whose IRK generated it.
    public static let identityKeys = RegistryConfiguration.Key<[IdentityKey]>("device.identity_keys", default: [])
}

/// An IRK the tracker resolves with: the identity address it stands for, and where it came from
/// (shown as `device.irk_source`).
struct ResolvingKey {
    var irk: Value128
    var identity: TypedAddress
    var source: String
}

/// The IRKs known so far in one capture: those given to the run, then those learned from SMP
/// (Identity Information followed by Identity Address Information on a connection), in that
/// order. A key is only added, never removed, so a record remembers how many it was checked
/// against (`DeviceRecord.checkedKeys`) and is checked against the later ones only.
struct IdentityResolver {
    /// The most keys (given and learned): each costs one AES-128 per new private address.
    static let maximumKeys = 4096

    private(set) var keys: [ResolvingKey] = []
    /// Made with the first key: without keys no cipher context is allocated.
    private var aes: AES128?

    init(given: [IdentityKey] = []) {
        for key in given {
            let type = key.isRandom.map { $0 ? AddressType.random : AddressType.public } ?? AddressType.unknown
            add(irk: key.irk, identity: TypedAddress(address: key.identity, type: type), source: key.source.description)
        }
    }

    var count: Int { keys.count }

    /// Adds a key unless it is known already (the same IRK for the same identity), all zeros (a
    /// device without an IRK sends zeros), or the list is full. Whether it was added.
    @discardableResult
    mutating func add(irk: Value128, identity: TypedAddress, source: String) -> Bool {
        guard irk != .zero, keys.count < Self.maximumKeys,
            !keys.contains(where: { $0.irk == irk && $0.identity.address == identity.address })
        else { return false }
        keys.append(ResolvingKey(irk: irk, identity: identity, source: source))
        return true
    }

    /// The index of the first key from `start` on whose IRK generated `address`, a random
    /// address; nil when none did or the address is not a resolvable private one (its two most
    /// significant bits are not 0b01, Vol 6 Part B 1.3.2.2).
    mutating func resolve(_ address: BDAddr, from start: Int) -> Int? {
        guard start < keys.count, address.rawValue >> 46 == 0b01 else { return nil }
        if aes == nil { aes = try? AES128() }
        guard let aes else { return nil }
        let rpa = LEAddress(address, isRandom: true)
        for i in max(0, start)..<keys.count {
            // A cipher error (libcrypto failing) resolves nothing.
            if (try? aes.resolves(rpa, irk: keys[i].irk)) == true { return i }
        }
        return nil
    }
}
