/// Why a security function refused its input, or libcrypto failed. Carries a comparable code and
/// the byte offset in the input it concerns (0 when the input as a whole is wrong).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// An input of the wrong number of octets (a key that is not 16 octets).
        case wrongLength
        /// A number outside the range the function takes (a passkey above 999999, a counter
        /// above 2^39 - 1).
        case outOfRange
        /// A PDU too short to hold what it must (an encrypted payload without its MIC).
        case truncated
        /// libcrypto failed (allocation, or a cipher it does not provide).
        case library
    }

    public var code: Code
    /// Offset within the input the problem was found at.
    public var offset: Int
    public var reason: String

    public init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    public var description: String { reason }

    /// Errors compare by code and offset: tests and callers match on those, not on wording.
    public static func == (a: CryptoError, b: CryptoError) -> Bool { a.code == b.code && a.offset == b.offset }
    public func hash(into h: inout Hasher) {
        h.combine(code)
        h.combine(offset)
    }

    static func wrongLength(_ what: String, need: Int, have: Int) -> CryptoError {
        CryptoError(.wrongLength, offset: min(need, have), "\(what) needs \(need) octets, got \(have)")
    }

    static func library(_ call: String) -> CryptoError {
        CryptoError(.library, offset: 0, "libcrypto failed in \(call)")
    }
}
