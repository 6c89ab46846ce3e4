import ArgumentParser
import BLECapture
import BLEInspectSession
import BLEInspectViews

struct Conns: StandardView {
    static let configuration = CommandConfiguration(
        commandName: "conns",
        abstract: "Summarise each connection in a capture: parameters, security, ATT and credit-based channels.",
        discussion: """
            One block per connection, in the order the connections began: the peer, the local \
            host's role, start, end, duration and disconnection reason; the connection \
            parameters and every update or request, ATT MTU, PHY and data length; encryption and \
            the pairing method; ATT counts and request→response times (min, median, max); for \
            each L2CAP credit-based channel its PSM, SDUs and bytes in each direction and the \
            time each sender was stalled at 0 credits with an SDU unfinished; and the time from \
            the peer's first advertisement to the connection and to the first ATT exchange.

            Each connection is written as soon as it ends, so memory stays flat however long \
            the capture.

            Examples:
              bleinspect conns btsnoop_hci.log
              bleinspect conns -Y 'device.addr == c0:de:c0:de:00:02' capture.btsnoop
              bleinspect conns --json capture.btsnoop | jq '.connections[].channels'
            """
    )

    @OptionGroup var input: ViewInput

    @Flag(help: "Print the connections as JSON (schema bleinspect.conns/1, see docs/VIEWS.md).")
    var json = false

    typealias Runner = ConnsCommandRunner
}

extension ConnsCommandRunner: ViewRunner {}
