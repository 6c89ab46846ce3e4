/// Why registration failed: every problem found, in the order found.
public struct RegistryError: Error, Sendable, CustomStringConvertible {
    public let issues: [RegistryProblem]

    public init(issues: [RegistryProblem]) { self.issues = issues }

    /// The problems' messages, as shown to users.
    public var problems: [String] { issues.map(\.message) }
    /// The problems' codes, to compare in tests and tools.
    public var codes: [RegistryProblem.Code] { issues.map(\.code) }
    public var description: String { problems.joined(separator: "\n") }
}

/// One reason registration failed: a comparable code and the message shown.
public struct RegistryProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// A field set's raw values do not run 0, 1, 2…
        case fieldNumbering
        /// Two modules give one UUID different names.
        case uuidNamedTwice
        /// Two modules declare one table.
        case tableDeclaredTwice
        /// Two fields have one filter name.
        case fieldRegisteredTwice
        /// A field's name has no protocol prefix (`btatt.`).
        case fieldWithoutPrefix
        /// An alias names a field that no module registers.
        case aliasOfUnknownField
        /// An alias has the name of a field.
        case aliasClash
        /// A binding into a table no module declares.
        case undeclaredTable
        /// Two built-in modules (or two plugins) bind one key of a table.
        case duplicateKey
        /// A table's opcode rows are declared twice, or a row is out of range, given twice, or
        /// answers an opcode with no row (`RegistryBuilder.declareOpcodes`).
        case opcodeRows
        /// A key is given two different roles (`RegistryBuilder.declareRole`).
        case keyRoleTwice
        /// A binding's key is of another kind than its table's (a UUID in an integer table, say).
        case keyKindMismatch
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
