import CoreBluetooth
import Foundation

/// While pairing, the thermometer advertises the phone's name and a pairing token.
final class PairingAdvertiser: NSObject, ObservableObject, CBPeripheralManagerDelegate {
    private var manager: CBPeripheralManager?
    private var token = Data(PairingConstants.payloadPrefix)

    func start() {
        if manager == nil {
            manager = CBPeripheralManager(delegate: self, queue: .main)
        }
        token.append(contentsOf: (0..<4).map { _ in UInt8.random(in: 0...255) })

        var advertisement: [String: Any] = [
            CBAdvertisementDataLocalNameKey: PairingConstants.advertisedName
        ]
        advertisement[CBAdvertisementDataServiceUUIDsKey] = [PairingConstants.serviceUUID]
        advertisement[CBAdvertisementDataManufacturerDataKey] = token
        manager?.startAdvertising(advertisement)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        if peripheral.state != .poweredOn {
            peripheral.stopAdvertising()
        }
    }
}
