import CoreBluetooth
import Flutter

/// A Flutter plugin: Dart calls "startAdvertising" over the method channel.
public final class BlePlugin: NSObject, FlutterPlugin {
    private let peripheralManager = CBPeripheralManager(delegate: nil, queue: nil)

    public static func register(with registrar: FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "ble_peripheral", binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(BlePlugin(), channel: channel)
    }

    public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "startAdvertising":
            let arguments = call.arguments as? [String: Any]
            startAdvertising(name: arguments?["name"] as? String ?? "Device")
            result(nil)
        default:
            result(FlutterMethodNotImplemented)
        }
    }

    private func startAdvertising(name: String) {
        peripheralManager.startAdvertising([CBAdvertisementDataLocalNameKey: name])
    }
}
