/// Why a PDU could not be decoded. Thrown by `ByteReader` and dissectors, caught by the engine at
/// each dispatch boundary, where it becomes a "malformed" expert note while the layers already
/// decoded stay in the tree.
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The PDU ends before a field it announces: the packet is too short.
        case truncated
        /// A value that the protocol does not allow (bad length, bad state).
        case malformed
        /// A resource limit of this program was reached (depth, nodes, reassembly size).
        case limitExceeded
    }

    public var code: Code
    /// Offset within the data the error was found in.
    public var offset: Int
    public var reason: String

    public init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    @inline(never)
    public static func truncated(at offset: Int, need: Int, have: Int) -> DecodeError {
        DecodeError(.truncated, offset: offset, "needs \(need) more byte\(need == 1 ? "" : "s"), \(have) left")
    }

    public var description: String { reason }

    public static func == (a: DecodeError, b: DecodeError) -> Bool { a.code == b.code }
    public func hash(into h: inout Hasher) { h.combine(code) }
}
