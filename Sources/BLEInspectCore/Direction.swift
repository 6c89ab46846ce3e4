/// Which way a frame travelled over the HCI transport.
public enum Direction: UInt8, Sendable, Hashable {
    /// The capture does not say (for example pcap link type 187, plain H4).
    case unknown
    /// Sent by the host: commands, outgoing ACL/SCO/ISO data.
    case hostToController
    /// Received from the controller: events, incoming ACL/SCO/ISO data.
    case controllerToHost

    /// Whether the capturing host sent the frame: nil when the capture does not say.
    public var sentByLocal: Bool? {
        switch self {
        case .unknown: nil
        case .hostToController: true
        case .controllerToHost: false
        }
    }

    /// btmon's direction mark: `<` sent, `>` received, `?` unknown.
    public var mark: Character {
        switch self {
        case .unknown: "?"
        case .hostToController: "<"
        case .controllerToHost: ">"
        }
    }
}
