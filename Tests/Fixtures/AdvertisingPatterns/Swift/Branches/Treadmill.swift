import CoreBluetooth

enum BuildFlavor { case debug, release }

final class Treadmill {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    let flavor = BuildFlavor.release
    let metric = true

    func start() {
        let advertisement: [String: Any]
        switch flavor {
        case .debug:
            advertisement = [CBAdvertisementDataLocalNameKey: "Treadmill DEV"]
        case .release:
            advertisement = [CBAdvertisementDataLocalNameKey: metric ? "Treadmill km" : "Treadmill mi"]
        }
        manager.startAdvertising(advertisement)
    }
}
