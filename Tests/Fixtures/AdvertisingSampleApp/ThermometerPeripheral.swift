import Combine
import CoreBluetooth
import os

/// Publishes the thermometer's GATT service and advertises it.
final class ThermometerPeripheral: NSObject, ObservableObject, CBPeripheralManagerDelegate {
    @Published private(set) var isAdvertising = false
    @Published private(set) var temperatureText = "--"
    @Published var compact = false

    private let log = Logger(subsystem: "com.example.thermo", category: "peripheral")
    private var peripheralManager: CBPeripheralManager
    private var temperature: CBMutableCharacteristic?

    override init() {
        peripheralManager = CBPeripheralManager(delegate: nil, queue: nil)
        super.init()
        peripheralManager.delegate = self
    }

    func startAdvertising() {
        guard peripheralManager.state == .poweredOn else {
            log.info("Bluetooth is not on yet")
            return
        }
        if compact {
            startCompactAdvertising()
            return
        }
        peripheralManager.startAdvertising([
            CBAdvertisementDataLocalNameKey: AdvertisingConstants.localName,
            CBAdvertisementDataServiceUUIDsKey: [AdvertisingConstants.Services.thermometer],
        ])
    }

    private func startCompactAdvertising() {
        let advertisementData: [String: Any] = [
            CBAdvertisementDataLocalNameKey: AdvertisingConstants.shortName,
            CBAdvertisementDataServiceUUIDsKey: AdvertisingConstants.Services.all + [.battery],
        ]
        peripheralManager.startAdvertising(advertisementData)
    }

    func stopAdvertising() {
        peripheralManager.stopAdvertising()
        isAdvertising = false
    }

    // MARK: CBPeripheralManagerDelegate

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        log.info("peripheral manager state \(peripheral.state.rawValue)")
        guard peripheral.state == .poweredOn, temperature == nil else { return }
        let characteristic = CBMutableCharacteristic(
            type: AdvertisingConstants.Characteristics.temperature,
            properties: [.read, .indicate],
            value: nil,
            permissions: [.readable]
        )
        let service = CBMutableService(type: AdvertisingConstants.Services.thermometer, primary: true)
        service.characteristics = [characteristic]
        peripheral.add(service)
        temperature = characteristic
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        if let error {
            log.error("advertising failed: \(error.localizedDescription)")
        }
        isAdvertising = error == nil
    }
}
