import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore

extension PDUFeeder {
    /// Dissects one ATT PDU (hex) on `connection`: on the fixed channel 4, or with `eatt` on an
    /// enhanced ATT channel (CID 0x0041, PSM 0x0027). The frame's bytes are the PDU, so ranges
    /// index it; frame n has timestamp n seconds.
    @discardableResult
    func att(
        _ hex: String,
        _ direction: Direction = .hostToController,
        connection: UInt16 = 0x0040,
        eatt: Bool = false
    ) -> FrameSnapshot {
        channel(
            Hex.bytes(hex),
            direction,
            connection: connection,
            cid: eatt ? 0x0041 : 0x0004,
            psm: eatt ? 0x0027 : nil
        )
    }
}
