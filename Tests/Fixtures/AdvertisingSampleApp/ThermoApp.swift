import SwiftUI

@main
struct ThermoApp: App {
    @StateObject private var thermometer = ThermometerPeripheral()
    @StateObject private var pairing = PairingAdvertiser()
    private let beacon = BeaconAdvertiser()

    var body: some Scene {
        WindowGroup {
            ContentView(thermometer: thermometer, pairing: pairing, beacon: beacon)
        }
    }
}
