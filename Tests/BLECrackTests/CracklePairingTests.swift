import BLECaptureTestSupport
import BLECrack
import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLETestVectors
import Foundation
import Testing

/// crackle's sample of a sniffed Just Works legacy pairing and LTK exchange
/// (../shared/captures/crackle_pairing_and_ltk_exchange.pcap, PPI with a BTLE field; skipped
/// when the shared captures are absent). crackle's documentation says its TK is 000000 and that
/// the LTK exchanged after encryption is the one crackle's known-LTK sample decrypts with.
@Suite("Legacy pairing crack on crackle's capture", .enabled(if: TestPaths.sharedCapturesAvailable))
struct CracklePairingTests {
    static let file = "crackle_pairing_and_ltk_exchange.pcap"

    /// The pairing and encryption PDUs of the capture, read from its link-layer packets.
    static func capture() throws -> SniffedLink {
        let read = CaptureFiles.readAll(TestPaths.sharedCaptures.appendingPathComponent(file).path)
        #expect(read.error == nil)
        return try #require(SniffedLink(read.frames))
    }

    /// The values are those tshark shows with `-x` (it does not dissect this PPI field): the
    /// Pairing Request in frame 566, the Response in 568, Mconfirm 569, Sconfirm 572, Mrand 573,
    /// Srand 576, LL_ENC_REQ 577, LL_ENC_RSP 580, and CONNECT_REQ 516 for the addresses.
    @Test func theCaptureHoldsThePairing() throws {
        let link = try Self.capture()
        #expect(link.pairingRequest == Hex.bytes("01 03 00 05 10 00 01"))
        #expect(link.pairingResponse == Hex.bytes("02 00 00 05 10 00 01"))
        #expect(link.initiator == LEAddress(BDAddr(rawValue: 0x08_3E8E_E10B_3E), isRandom: false))
        #expect(link.responder == LEAddress(BDAddr(rawValue: 0x78_C5E5_6EDD_E8), isRandom: false))
        #expect(
            link.confirms == [
                Hex.bytes("fe bb 98 3e d7 80 20 e1 3d 68 5b c8 41 8d 2c 5d"),
                Hex.bytes("78 ef 8b cb 87 b5 05 a1 70 71 a8 b0 8d f8 cb 29"),
            ]
        )
        #expect(
            link.randoms == [
                Hex.bytes("ab b6 92 eb fd 46 01 f4 aa d3 ae a4 0f 7d a5 fc"),
                Hex.bytes("7d aa 0b e2 40 06 54 30 81 ff e8 63 26 8e 5a d8"),
            ]
        )
        #expect(link.skdCentral == 0x9F6B_013D_7EB2_5F87)
        #expect(link.ivCentral == 0xCCC7_6EEA)
        #expect(link.skdPeripheral == 0x68F5_ADD3_CA18_5186)
        #expect(link.ivPeripheral == 0x66DE_9961)
    }

    /// The TK is 0 (Just Works), and the STK it gives decrypts the responder's Encryption
    /// Information: the LTK crackle's known-LTK sample is decrypted with, 7f62c053f104a5bbe68b1d896a2ed49c.
    @Test func crackFindsJustWorksAndTheLTK() throws {
        let link = try Self.capture()
        let found = try #require(try LegacyPairingCrack.crack(link.pairing()))
        #expect(found.passkey == 0)
        let cipher = try LinkLayerCipher(
            ltk: found.stk,
            skdCentral: link.skdCentral,
            ivCentral: link.ivCentral,
            skdPeripheral: link.skdPeripheral,
            ivPeripheral: link.ivPeripheral,
            using: AES128()
        )
        let encrypted = try #require(link.firstEncrypted)
        let result = try cipher.decrypt(
            headerFirstOctet: encrypted.header,
            payloadAndMIC: encrypted.payload,
            counter: 1,
            direction: .peripheralToCentral
        )
        guard case .plaintext(let plain) = result else {
            Issue.record("the STK does not decrypt frame 589")
            return
        }
        // L2CAP length 17, CID 6; SMP Encryption Information (0x06) and the LTK, least
        // significant octet first.
        #expect(Array(plain.prefix(5)) == [0x11, 0x00, 0x06, 0x00, 0x06])
        #expect(
            try Value128(lsoFirst: plain.dropFirst(5))
                == Value128(high: 0x7F62_C053_F104_A5BB, low: 0xE68B_1D89_6A2E_D49C)
        )
        // With the wrong key (TK 1's STK), the MIC fails.
        let wrong = try LinkLayerCipher(
            ltk: AES128().s1(k: Value128(1), r1: link.pairing().srand, r2: link.pairing().mrand),
            skdCentral: link.skdCentral,
            ivCentral: link.ivCentral,
            skdPeripheral: link.skdPeripheral,
            ivPeripheral: link.ivPeripheral,
            using: AES128()
        )
        #expect(
            try wrong.decrypt(
                headerFirstOctet: encrypted.header,
                payloadAndMIC: encrypted.payload,
                counter: 1,
                direction: .peripheralToCentral
            ) == .micFailure
        )
    }
}
