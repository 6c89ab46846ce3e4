import BLECrypto
import BLETestVectors
import Testing

/// The byte-order convention: values go in and out only most or least significant octet first.
@Suite("Value128 and Value256 byte order")
struct ValueOrderTests {
    @Test func bothOrdersGiveTheSameNumber() throws {
        let mso = Hex.bytes("4C68384139F574D836BCF34E9DFB01BF")
        let a = try Value128(msoFirst: mso)
        let b = try Value128(lsoFirst: mso.reversed())
        #expect(a == b)
        #expect(a.high == 0x4C68_3841_39F5_74D8)
        #expect(a.low == 0x36BC_F34E_9DFB_01BF)
        #expect(a.msoFirst == mso)
        #expect(a.lsoFirst == mso.reversed())
        #expect(a.description == "4c68384139f574d836bcf34e9dfb01bf")
    }

    @Test func wrongLengthsAreRefused() {
        #expect(throws: CryptoError(.wrongLength, offset: 15, "")) {
            try Value128(msoFirst: [UInt8](repeating: 0, count: 15))
        }
        #expect(throws: CryptoError(.wrongLength, offset: 16, "")) {
            try Value128(lsoFirst: [UInt8](repeating: 0, count: 17))
        }
        #expect(throws: CryptoError(.wrongLength, offset: 16, "")) {
            try Value256(msoFirst: [UInt8](repeating: 0, count: 16))
        }
        do {
            _ = try Value128(msoFirst: [1, 2, 3])
            Issue.record("accepted 3 octets")
        } catch {
            #expect(error.description == "a 128-bit value needs 16 octets, got 3")
        }
    }

    @Test func value256KeepsItsOrder() throws {
        let bytes = (0..<32).map { UInt8($0) }
        let v = try Value256(lsoFirst: bytes)
        #expect(v.msoFirst == bytes.reversed())
        #expect(v.lsoFirst == bytes)
    }
}
