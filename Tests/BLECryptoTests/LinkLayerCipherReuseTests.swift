import BLECrypto
import BLETestVectors
import Testing

/// One cipher keeps one libcrypto context for its key: a MIC failure leaves it ready for the next
/// packet, and ciphers of different keys used in turn do not disturb each other (the sample data
/// of Core Vol 6 Part C 1 again).
@Suite("Link-layer AES-CCM context reuse")
struct LinkLayerCipherReuseTests {
    typealias Sample = LinkLayerCipherTests

    /// Every sample packet decrypts right after a MIC failure on the same cipher: a flipped MIC,
    /// the wrong counter, a wrong header bit.
    @Test(arguments: Sample.packets)
    func decryptsAfterAMICFailure(_ p: Sample.Packet) throws {
        let cipher = try Sample.sample()
        var flipped = p.air
        flipped[flipped.count - 1] ^= 0x80
        let failures = [
            try p.decrypt(cipher, flipped),
            try p.decrypt(cipher, counter: p.counter + 1),
            try p.decrypt(cipher, header: p.header ^ 0x01),
        ]
        for failure in failures {
            #expect(failure == .micFailure)
            #expect(try p.decrypt(cipher) == p.verified)
        }
    }

    /// Encrypting (a context of its own each time) between decryptions changes neither.
    @Test func encryptionAndDecryptionAlternate() throws {
        let cipher = try Sample.sample()
        for p in Sample.packets + Sample.packets {
            #expect(try p.encrypt(cipher) == p.air)
            #expect(try p.decrypt(cipher) == p.verified)
        }
    }

    /// The sample cipher and one of another key (the sample's session key with its low bit
    /// flipped), used in turn: each decrypts the packets it encrypted, and fails the other's.
    @Test func ciphersOfTwoKeysInterleave() throws {
        let sample = try Sample.sample()
        let other = LinkLayerCipher(
            sessionKey: sample.sessionKey ^ Value128(1),
            ivCentral: 0xBADC_AB24,
            ivPeripheral: 0xDEAF_BABE
        )
        #expect(sample != other)
        for p in Sample.packets {
            let theirs = try p.encrypt(other)
            #expect(theirs != p.air)
            for (cipher, air, verifies) in [
                (sample, p.air, true), (other, theirs, true), (sample, theirs, false), (other, p.air, false),
            ] {
                #expect(try p.decrypt(cipher, air) == (verifies ? p.verified : .micFailure))
            }
        }
    }

    /// Copies share one context; threads decrypting with them at once each get the sample's
    /// plaintext (a thread that finds the context taken uses one of its own).
    @Test func copiesDecryptOnManyThreadsAtOnce() async throws {
        let cipher = try Sample.sample()
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<500).allSatisfy { i in
                        let p = Sample.packets[i % Sample.packets.count]
                        return (try? p.decrypt(cipher)) == p.verified
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}

extension LinkLayerCipherTests.Packet {
    /// The packet's payload and MIC on air.
    var air: [UInt8] { Hex.bytes(encrypted) }
    /// What decrypting the packet gives.
    var verified: LinkLayerDecryption { .plaintext(Hex.bytes(plaintext)) }

    /// `cipher`'s decryption of `octets` (the packet's own by default) sent as this packet, with
    /// its header and counter unless others are given.
    func decrypt(_ cipher: LinkLayerCipher, _ octets: [UInt8]? = nil, header: UInt8? = nil, counter: UInt64? = nil)
        throws -> LinkLayerDecryption
    {
        try cipher.decrypt(
            headerFirstOctet: header ?? self.header,
            payloadAndMIC: octets ?? air,
            counter: counter ?? self.counter,
            direction: direction
        )
    }

    /// `cipher`'s encryption of the packet's plaintext.
    func encrypt(_ cipher: LinkLayerCipher) throws -> [UInt8] {
        try cipher.encrypt(
            headerFirstOctet: header,
            payload: Hex.bytes(plaintext),
            counter: counter,
            direction: direction
        )
    }
}
