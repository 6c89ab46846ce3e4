import SwiftUI

struct ContentView: View {
    @ObservedObject var thermometer: ThermometerPeripheral
    @ObservedObject var pairing: PairingAdvertiser
    let beacon: BeaconAdvertiser

    var body: some View {
        NavigationStack {
            Form {
                Section("Thermometer") {
                    LabeledContent("Temperature", value: thermometer.temperatureText)
                    Toggle("Compact advert", isOn: $thermometer.compact)
                    Button(thermometer.isAdvertising ? "Stop" : "Advertise") {
                        if thermometer.isAdvertising {
                            thermometer.stopAdvertising()
                        } else {
                            thermometer.startAdvertising()
                        }
                    }
                }
                Section("Pairing") {
                    Button("Pair a new phone") { pairing.start() }
                }
                Section("Beacon") {
                    Button("Act as a beacon") { beacon.start() }
                }
            }
            .navigationTitle(AdvertisingConstants.shortName)
        }
    }
}
