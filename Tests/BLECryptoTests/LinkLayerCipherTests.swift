import BLECrypto
import BLETestVectors
import Testing

/// The link layer's AES-CCM with the encryption sample data of Core Vol 6 Part C 1 (LTK, SKD_C,
/// SKD_P, IV_C, IV_P, SK, and the LL_START_ENC_RSP and data packets in both directions), as
/// published at bluetooth.com (Core 5.4 HTML, low-energy-controller/sample-data.html). The
/// packet octets agree in three independent test suites found with the search tool: bluetoe's
/// test_tools_encryption_tests.cpp, scholzri's ll_crypt host tests, and Zephyr's CAU3 radio
/// unit test (packet 0 central to peripheral, packet 1 peripheral to central).
@Suite("Link-layer AES-CCM")
struct LinkLayerCipherTests {
    struct Packet: Sendable, CustomStringConvertible {
        var name: String
        var header: UInt8
        var counter: UInt64
        var direction: LinkLayerDirection
        var plaintext: String
        var encrypted: String
        var description: String { name }
    }

    static let packets = [
        Packet(
            name: "LL_START_ENC_RSP1",
            header: 0x0F,
            counter: 0,
            direction: .centralToPeripheral,
            plaintext: "06",
            encrypted: "9f cd a7 f4 48"
        ),
        Packet(
            name: "LL_START_ENC_RSP2",
            header: 0x07,
            counter: 0,
            direction: .peripheralToCentral,
            plaintext: "06",
            encrypted: "a3 4c 13 a4 15"
        ),
        Packet(
            name: "LL_DATA1",
            header: 0x0E,
            counter: 1,
            direction: .centralToPeripheral,
            plaintext: "17 00 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 31 32 33 34 35 36 37 38 39 30",
            encrypted:
                "7a 70 d6 64 15 22 6d f2 6b 17 83 9a 06 04 05 59 6b d6 56 4f 79 6b 5b 9c e6 ff 32 f7 5a 6d 33"
        ),
        Packet(
            name: "LL_DATA2",
            header: 0x06,
            counter: 1,
            direction: .peripheralToCentral,
            plaintext: "17 00 37 36 35 34 33 32 31 30 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51",
            encrypted:
                "f3 88 81 e7 bd 94 c9 c3 69 b9 a6 68 46 dd 47 86 aa 8c 39 ce 54 0d 0d ae 3a dc df 89 b9 60 88"
        ),
    ]

    /// LTK, SKD_C = 0xACBDCEDFE0F10213, SKD_P = 0x0213243546576879, IV_C = 0xBADCAB24,
    /// IV_P = 0xDEAFBABE (the values the LL_ENC_REQ and LL_ENC_RSP fields carry).
    static func sample() throws -> LinkLayerCipher {
        try LinkLayerCipher(
            ltk: spec("4C68384139F574D836BCF34E9DFB01BF"),
            skdCentral: 0xACBD_CEDF_E0F1_0213,
            ivCentral: 0xBADC_AB24,
            skdPeripheral: 0x0213_2435_4657_6879,
            ivPeripheral: 0xDEAF_BABE,
            using: AES128()
        )
    }

    @Test func theSessionKeyAndIVMatch() throws {
        let cipher = try Self.sample()
        #expect(cipher.sessionKey == (try spec("99AD1B5226A37E3E058E3B8E27C2C666")))
        #expect(cipher.iv == 0xDEAF_BABE_BADC_AB24)
    }

    /// Each sample packet encrypts to its octets on air and decrypts back.
    @Test(arguments: packets)
    func matchesTheSample(_ p: Packet) throws {
        let cipher = try Self.sample()
        let (plain, air) = (Hex.bytes(p.plaintext), Hex.bytes(p.encrypted))
        let encrypted = try cipher.encrypt(
            headerFirstOctet: p.header,
            payload: plain,
            counter: p.counter,
            direction: p.direction
        )
        #expect(encrypted == air)
        let decrypted = try cipher.decrypt(
            headerFirstOctet: p.header,
            payloadAndMIC: air,
            counter: p.counter,
            direction: p.direction
        )
        #expect(decrypted == .plaintext(plain))
    }

    /// NESN, SN and MD are not authenticated; a different LLID or an RFU bit is.
    @Test func theHeaderMaskKeepsLLIDAndRFU() throws {
        let cipher = try Self.sample()
        let p = Self.packets[2]
        let air = Hex.bytes(p.encrypted)
        for header: UInt8 in [0x02, 0x06, 0x0A, 0x12, 0x1E] {
            #expect(
                try cipher.decrypt(headerFirstOctet: header, payloadAndMIC: air, counter: 1, direction: p.direction)
                    == .plaintext(Hex.bytes(p.plaintext))
            )
        }
        for header: UInt8 in [0x01, 0x03, 0x22, 0x42, 0x82] {
            #expect(
                try cipher.decrypt(headerFirstOctet: header, payloadAndMIC: air, counter: 1, direction: p.direction)
                    == .micFailure
            )
        }
    }

    /// The wrong key, a flipped bit anywhere, the wrong counter or direction: a MIC failure and no
    /// plaintext.
    @Test(arguments: packets)
    func tamperingFailsTheMIC(_ p: Packet) throws {
        let cipher = try Self.sample()
        let air = Hex.bytes(p.encrypted)
        let wrongKey = LinkLayerCipher(
            sessionKey: cipher.sessionKey ^ Value128(1),
            ivCentral: 0xBADC_AB24,
            ivPeripheral: 0xDEAF_BABE
        )
        #expect(
            try wrongKey.decrypt(
                headerFirstOctet: p.header,
                payloadAndMIC: air,
                counter: p.counter,
                direction: p.direction
            )
                == .micFailure
        )
        for i in air.indices {
            for bit in [0, 7] {
                var flipped = air
                flipped[i] ^= 1 << bit
                #expect(
                    try cipher.decrypt(
                        headerFirstOctet: p.header,
                        payloadAndMIC: flipped,
                        counter: p.counter,
                        direction: p.direction
                    )
                        == .micFailure
                )
            }
        }
        let other: LinkLayerDirection =
            p.direction == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral
        #expect(
            try cipher.decrypt(headerFirstOctet: p.header, payloadAndMIC: air, counter: p.counter, direction: other)
                == .micFailure
        )
        #expect(
            try cipher.decrypt(
                headerFirstOctet: p.header,
                payloadAndMIC: air,
                counter: p.counter + 1,
                direction: p.direction
            )
                == .micFailure
        )
    }

    @Test func badInputIsRefused() throws {
        let cipher = try Self.sample()
        #expect(throws: CryptoError(.truncated, offset: 4, "")) {
            try cipher.decrypt(
                headerFirstOctet: 0x0E,
                payloadAndMIC: [1, 2, 3, 4],
                counter: 0,
                direction: .centralToPeripheral
            )
        }
        #expect(throws: CryptoError(.outOfRange, offset: 0, "")) {
            try cipher.decrypt(
                headerFirstOctet: 0x0E,
                payloadAndMIC: [UInt8](repeating: 0, count: 256),
                counter: 0,
                direction: .centralToPeripheral
            )
        }
        #expect(throws: CryptoError(.outOfRange, offset: 0, "")) {
            try cipher.encrypt(headerFirstOctet: 0x0E, payload: [], counter: 0, direction: .centralToPeripheral)
        }
        #expect(throws: CryptoError(.outOfRange, offset: 0, "")) {
            try cipher.encrypt(headerFirstOctet: 0x0E, payload: [1], counter: 1 << 39, direction: .centralToPeripheral)
        }
    }

    /// The largest payload at the largest counter goes there and back in both directions.
    @Test func theLargestPayloadRoundTrips() throws {
        let cipher = try Self.sample()
        let payload = (0..<251).map { UInt8(truncatingIfNeeded: $0) }
        for direction in [LinkLayerDirection.centralToPeripheral, .peripheralToCentral] {
            let air = try cipher.encrypt(
                headerFirstOctet: 0x1E,
                payload: payload,
                counter: LinkLayerCipher.maximumCounter,
                direction: direction
            )
            #expect(air.count == 255)
            #expect(
                try cipher.decrypt(
                    headerFirstOctet: 0x1E,
                    payloadAndMIC: air,
                    counter: LinkLayerCipher.maximumCounter,
                    direction: direction
                ) == .plaintext(payload)
            )
        }
    }
}
