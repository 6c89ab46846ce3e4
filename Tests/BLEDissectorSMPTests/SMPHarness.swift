import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore

extension PDUFeeder {
    /// Dissects one SMP PDU (hex) on `connection`, LE (channel 6) or BR/EDR (channel 7).
    @discardableResult
    func smp(
        _ hex: String,
        _ direction: Direction = .hostToController,
        connection: UInt16 = 0x0040,
        cid: UInt16 = 6
    ) -> FrameSnapshot {
        channel(Hex.bytes(hex), direction, connection: connection, cid: cid, psm: nil)
    }
}
