import BLECrypto
import BLETestVectors

/// A 128-bit value from hex text written most significant octet first, as the specification
/// prints it (spaces ignored).
func spec(_ text: String) throws -> Value128 { try Value128(msoFirst: Hex.bytes(text)) }

/// A 256-bit value from hex text written most significant octet first.
func spec256(_ text: String) throws -> Value256 { try Value256(msoFirst: Hex.bytes(text)) }
