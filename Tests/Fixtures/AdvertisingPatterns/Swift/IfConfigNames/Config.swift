import CoreBluetooth

enum Config {
    #if DEBUG
        static let deviceName = "Thermo-DEV"
    #elseif targetEnvironment(simulator)
        static let deviceName = "Thermo-SIM"
    #else
        static let deviceName = "Thermo"
    #endif
    static let service = CBUUID(string: "1809")
}

func advertiseThermometer(_ manager: CBPeripheralManager) {
    manager.startAdvertising([CBAdvertisementDataLocalNameKey: Config.deviceName, CBAdvertisementDataServiceUUIDsKey: [Config.service]])
}
