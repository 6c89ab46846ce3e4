import CoreBluetooth

struct AdvertConfig {
    let name: String
}

/// The app's own advertiser: its `startAdvertising(_:)` takes a config, not a dictionary.
final class Advertiser {
    private let peripheralManager = CBPeripheralManager(delegate: nil, queue: nil)

    func startAdvertising(_ config: AdvertConfig) {
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: config.name])
    }

    func startAdvertising() {
        startAdvertising(AdvertConfig(name: "Tag"))
    }
}

func resume(advertiser: Advertiser) {
    let config = AdvertConfig(name: "Tag 2")
    advertiser.startAdvertising(config)
    advertiser.startAdvertising()
}
