public import BLEInspectCore
import BLETestVectors

/// Frames the project builds itself: one short connection's worth of HCI traffic (a connection,
/// an advertising report with a name, GATT discovery, an LE credit-based channel with data,
/// pairing, a disconnection) and sniffed link-layer advertising. They seed the pipeline target
/// and are what the filter and plugin targets dissect.
public enum BuiltFrames {
    /// (kind, direction, hex bytes)
    static let specs: [(FrameKind, Direction, String)] = [
        (.hciCommand, .hostToController, "030c00"),
        (.hciEvent, .controllerToHost, "3e19020100001122334455660d0201060509546573740303 0f18c4"),
        (.hciEvent, .controllerToHost, "3e1301004000000011223344556618000000c80000"),
        (.aclData, .hostToController, "40200b0007000400 100100ffff0028"),
        (.aclData, .controllerToHost, "40200c0008000400 110601000500 0f18"),
        (.aclData, .hostToController, "4020070003000400 0a0300"),
        (.aclData, .controllerToHost, "4020090005000400 0b4e616d65"),
        (.aclData, .hostToController, "402012000e000500 14010a008000400000 02f7000a00"),
        (.aclData, .controllerToHost, "402012000e000500 15010a00410000 02f7000a000000"),
        (.aclData, .hostToController, "40200a0006004100 040064617461"),
        (.aclData, .hostToController, "40200b0007000600 0103000d100707"),
        (.aclData, .controllerToHost, "40200b0007000600 0203000d100707"),
        (.hciEvent, .controllerToHost, "0504004000 13"),
        (.linkLayer(linkType: 251), .unknown, "d6be898e 000f 112233445566 020106050954657374 aabbcc"),
        (.note, .unknown, "6e6f746500"),
    ]

    /// The frames, numbered from 1, a millisecond apart.
    public static var frames: [CapturedFrame] {
        specs.enumerated().map { i, spec in
            let bytes = Hex.bytes(spec.2)
            return CapturedFrame(
                number: i + 1,
                timestamp: Timestamp(unixMicroseconds: 1_700_000_000_000_000 + Int64(i) * 1000),
                direction: spec.1,
                controllerIndex: 0,
                kind: spec.0,
                bytes: bytes,
                originalLength: bytes.count,
                sourceOffset: 0
            )
        }
    }
}
