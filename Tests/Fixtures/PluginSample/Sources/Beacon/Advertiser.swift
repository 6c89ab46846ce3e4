#if canImport(CoreBluetooth)
    import CoreBluetooth

    enum Names {
        static let peripheral = "com.example.bleinspect.beacon"
    }

    final class Advertiser {
        let manager = CBPeripheralManager(delegate: nil, queue: nil)

        func start() {
            let service = CBUUID(string: "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E")
            manager.startAdvertising([
                CBAdvertisementDataLocalNameKey: Names.peripheral,
                CBAdvertisementDataServiceUUIDsKey: [service],
            ])
        }
    }
#endif
