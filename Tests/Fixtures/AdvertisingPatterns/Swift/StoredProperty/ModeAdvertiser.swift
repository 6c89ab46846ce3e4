import CoreBluetooth

enum SessionNames {
    static let active = "In session"
}

/// The name has an initial value and is set again in two methods: three variants.
final class ModeAdvertiser {
    private let manager = CBPeripheralManager(delegate: nil, queue: nil)
    private var advertisedName = "Idle"

    func enterPairing() {
        advertisedName = "Pair me"
        advertise()
    }

    func enterSession() {
        self.advertisedName = SessionNames.active
        advertise()
    }

    private func advertise() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: advertisedName])
    }
}
