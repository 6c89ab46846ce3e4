import BLECaptureTestSupport
import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLEInspectFilter
import BLEKeys
import Testing

@testable import BLEDissectorDevice

/// Resolvable private addresses resolved with IRKs: given in the configuration (`--keys`) or
/// learned from SMP Identity Information and Identity Address Information. The addresses are
/// made with the specification's ah, itself checked against the specification's sample.
@Suite("device tracking: IRK resolution")
struct DeviceResolutionTests {
    /// The specification's sample IRK (Vol 3 Part H Appendix D.7), most significant octet first.
    static let irk = Value128(high: 0xEC02_34A3_57C8_AD05, low: 0x3410_10A6_0A39_7D9B)
    let identity = "C0:DE:C0:DE:00:01"
    /// Not generated from `irk` (its hash is checked not to match).
    let stranger = "4A:11:22:33:44:55"

    /// The resolvable private address of `prand` (24 bits, two most significant bits 0b01) under `irk`.
    static func rpa(_ prand: UInt32, irk: Value128 = irk) throws -> String {
        let hash = try AES128().ah(irk: irk, prand: prand)
        return BDAddr(rawValue: UInt64(prand) << 24 | UInt64(hash)).description.uppercased()
    }

    /// A registry whose configuration gives `keys`.
    static func registry(_ keys: [IdentityKey]) throws -> DissectorRegistry {
        var configuration = RegistryConfiguration()
        configuration[DeviceModule.identityKeys] = keys
        return try RegistryBuilder.registering(modules: Dissect.modules).build(configuration: configuration)
    }

    var givenKey: IdentityKey {
        IdentityKey(
            identity: BDAddr(identity) ?? BDAddr(rawValue: 0),
            isRandom: true,
            irk: Self.irk,
            source: KeySource(file: "keys.txt", line: 3)
        )
    }

    /// Adverts: the first RPA, a second RPA of the same IRK, the stranger, the first RPA again.
    func adverts() throws -> (Script, String, String) {
        let rpa1 = try Self.rpa(0x70_8194)
        let rpa2 = try Self.rpa(0x4B_2C3D)
        var s = Script()
        s.advertisingReports([report(rpa1, nameAD("Phone"))])  // 1
        s.advertisingReports([report(rpa2, [])])  // 2
        s.advertisingReports([report(stranger, [])])  // 3
        s.advertisingReports([report(rpa1, [])])  // 4
        return (s, rpa1, rpa2)
    }

    /// The frames of `frames` that `filter` matches under `registry`.
    func matching(_ filter: String, _ frames: [CapturedFrame], _ registry: DissectorRegistry) throws -> [Int] {
        let compiled = try DisplayFilter.compile(filter, registry: registry)
        var engine = DissectionEngine(registry: registry)
        return frames.filter { frame in
            engine.dissect(frame, wantsInfo: false) { compiled.matches($0, frameBytes: frame.bytes) }
        }.map(\.number)
    }

    @Test("ah of the specification's sample: IRK ec0234a3…, prand 708194, hash 0dfbaa")
    func specificationSample() throws {
        #expect(try AES128().ah(irk: Self.irk, prand: 0x70_8194) == 0x0D_FBAA)
        #expect(try Self.rpa(0x70_8194) == "70:81:94:0D:FB:AA")
        let stranger = try #require(BDAddr(stranger))
        #expect(try !AES128().resolves(LEAddress(stranger, isRandom: true), irk: Self.irk))
    }

    @Test("without an IRK each RPA is its own device")
    func withoutKey() throws {
        let (s, rpa1, rpa2) = try adverts()
        let registry = try Self.registry([])
        #expect(try matching("device.addr == \(rpa1)", s.frames, registry) == [1, 4])
        #expect(try matching("device.addr == \(identity)", s.frames, registry) == [])
        let snaps = Dissect.frames(s.frames, registry: registry)
        #expect(snaps.frame(2)?.deviceAddresses == [rpa2])
        #expect(snaps.frame(2)?.identityAddresses == [])
        #expect(!snaps.contains { $0.has("device.irk_source") })
    }

    @Test("with the IRK in the configuration both RPAs are the identity's; the stranger is not")
    func givenKeyResolves() throws {
        let (s, rpa1, rpa2) = try adverts()
        let registry = try Self.registry([givenKey])
        #expect(try matching("device.addr == \(identity)", s.frames, registry) == [1, 2, 4])
        #expect(try matching("device.identity_addr == \(identity)", s.frames, registry) == [1, 2, 4])
        #expect(try matching("device.addr == \(rpa1)", s.frames, registry) == [1, 4])
        let snaps = Dissect.frames(s.frames, registry: registry)
        for (n, rpa) in [(1, rpa1), (2, rpa2), (4, rpa1)] {
            let f = try #require(snaps.frame(n))
            #expect(f.deviceAddresses == [rpa, identity], "frame \(n)")
            #expect(f.uints("device.addr_type") == [1, 1], "frame \(n)")
            #expect(f.identityAddresses == [identity], "frame \(n)")
            #expect(f.strings("device.irk_source") == ["keys.txt:3"], "frame \(n)")
            // One device: the name advertised under the first RPA, first seen in frame 1.
            #expect(f.deviceNames == ["Phone"], "frame \(n)")
            #expect(f.uints("device.first_seen") == [1], "frame \(n)")
        }
        let three = try #require(snaps.frame(3))
        #expect(three.deviceAddresses == [stranger])
        #expect(three.identityAddresses == [])
        #expect(!three.has("device.irk_source"))
    }

    @Test("an IRK learned over SMP resolves the RPAs seen after it, not the local device's")
    func learnedKeyResolves() throws {
        let early = try Self.rpa(0x55_0001)
        let connected = try Self.rpa(0x55_0002)
        let later = try Self.rpa(0x55_0003)
        let localIRK = Value128(high: 0x0011_2233_4455_6677, low: 0x8899_AABB_CCDD_EEFF)
        let local = try Self.rpa(0x55_0004, irk: localIRK)
        var s = Script()
        s.advertisingReports([report(early, [])])  // 1: before the key: its own
        s.leConnectionComplete(handle: 0x0040, peerType: 0x01, peer: connected)  // 2
        // 3, 4: the local host's keys (sent): ignored
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x08] + localIRK.lsoFirst, received: false)
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x09, 0x01] + addr("C0:00:00:00:00:99"), received: false)
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x08] + Self.irk.lsoFirst)  // 5: the peer's IRK
        s.l2cap(handle: 0x0040, cid: 0x0006, [0x09, 0x00] + addr(identity))  // 6: its identity
        s.disconnectionComplete(handle: 0x0040)  // 7
        s.advertisingReports([report(later, [])])  // 8: a new RPA: resolved
        s.advertisingReports([report(early, [])])  // 9: the early RPA, seen after the key: resolved
        s.advertisingReports([report(local, [])])  // 10: from the local IRK: not resolved
        let snaps = Dissect.frames(s.frames, registry: try Self.registry([]))
        #expect(snaps.frame(1)?.deviceAddresses == [early])
        #expect(snaps.frame(5)?.deviceAddresses == [connected])
        // Linked by Identity Address Information, as before: no key named.
        #expect(snaps.frame(6)?.deviceAddresses == [connected, identity])
        #expect(snaps.frame(6)?.has("device.irk_source") == false)
        for n in [8, 9] {
            let f = try #require(snaps.frame(n))
            #expect(f.deviceAddresses == [n == 8 ? later : early, identity], "frame \(n)")
            #expect(f.uints("device.addr_type") == [1, 0], "frame \(n)")
            #expect(f.identityAddresses == [identity], "frame \(n)")
            #expect(f.strings("device.irk_source") == ["SMP Identity Information in frame 5"], "frame \(n)")
            // Frame 8: first seen under the connection's RPA (frame 2); frame 9: the early RPA
            // (frame 1), now linked too.
            #expect(f.uints("device.first_seen") == [n == 8 ? 2 : 1], "frame \(n)")
        }
        #expect(snaps.frame(10)?.deviceAddresses == [local])
        #expect(snaps.frames(of: identity) == numbers(6...9))
    }

    @Test("the resolver: a key once, no zero key, only resolvable private addresses")
    func resolverRules() throws {
        let id = TypedAddress(address: try #require(BDAddr(identity)), type: AddressType.random)
        let rpa = try #require(BDAddr(try Self.rpa(0x70_8194)))
        var resolver = IdentityResolver()
        var found = resolver.resolve(rpa, from: 0)
        #expect(found == nil)
        let added = [
            resolver.add(irk: .zero, identity: id, source: "zero"),
            resolver.add(irk: Self.irk, identity: id, source: "a"),
            resolver.add(irk: Self.irk, identity: id, source: "b"),
        ]
        #expect(added == [false, true, false])
        #expect(resolver.count == 1)
        found = resolver.resolve(rpa, from: 0)
        #expect(found == 0)
        found = resolver.resolve(rpa, from: 1)
        #expect(found == nil)
        // The same 24-bit hash under a static random prefix (0b11) is not a private address.
        found = resolver.resolve(BDAddr(rawValue: rpa.rawValue | 0xC000_0000_0000), from: 0)
        #expect(found == nil)
    }
}
