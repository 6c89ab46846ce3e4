import CoreBluetooth

/// A central only: it scans and never advertises.
final class Scanner: NSObject, CBCentralManagerDelegate {
    private lazy var central = CBCentralManager(delegate: self, queue: nil)

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn {
            central.scanForPeripherals(withServices: [CBUUID(string: "180D")])
        }
    }
}
