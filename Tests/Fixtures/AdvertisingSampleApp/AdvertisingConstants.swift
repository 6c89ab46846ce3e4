import CoreBluetooth
import UIKit

/// The thermometer's own 128-bit service.
let thermometerServiceUUIDString = "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E"

enum AdvertisingConstants {
    /// The full name, as shown in Settings on the phones that pair with us.
    static let localName = "com.example.corebluetooth"
    /// A name short enough to fit next to three service UUIDs.
    static let shortName = "Thermo"

    enum Services {
        static let thermometer = CBUUID(string: thermometerServiceUUIDString)
        static let deviceInformation = CBUUID(string: "180A")
        static let all = [thermometer, deviceInformation]
    }

    enum Characteristics {
        static let temperature = CBUUID(string: "2A1C")
        static let unit = CBUUID(string: "F2A1C0DE-5E1F-4C6B-9C0A-1C0FFEE0B1E5")
    }
}

extension CBUUID {
    static let battery = CBUUID(string: "180F")
}

/// The pairing advert carries the phone's name, so people can tell their phones apart.
enum PairingConstants {
    static let serviceUUID = CBUUID(string: "C007")
    static var advertisedName: String { "Thermo \(UIDevice.current.name)" }
    static let payloadPrefix: [UInt8] = [0xFF, 0xFF, 0x01]
}
