/// Which way a frame travelled over the HCI transport.
public enum Direction: UInt8, Sendable, Hashable {
    /// The capture does not say (for example pcap link type 187, plain H4).
    case unknown
    /// Sent by the host: commands, outgoing ACL/SCO/ISO data.
    case hostToController
    /// Received from the controller: events, incoming ACL/SCO/ISO data.
    case controllerToHost

    /// btmon's direction mark: `<` sent, `>` received, `?` unknown.
    public var mark: Character {
        switch self {
        case .unknown: "?"
        case .hostToController: "<"
        case .controllerToHost: ">"
        }
    }
}
