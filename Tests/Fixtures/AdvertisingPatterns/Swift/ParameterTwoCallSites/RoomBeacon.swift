import CoreBluetooth

enum RoomNames {
    static let garage = "Garage sensor"
}

final class RoomBeacon {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)

    func advertise(name: String, uuid: CBUUID = CBUUID(string: "181A")) {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: name, CBAdvertisementDataServiceUUIDsKey: [uuid]])
    }
}

func setUpRooms(beacon: RoomBeacon) {
    beacon.advertise(name: "Kitchen")
    beacon.advertise(name: RoomNames.garage, uuid: CBUUID(string: "0x181C"))
}
