import CoreBluetooth

final class MeshPeripheral {
    let manager = CBPeripheralManager(delegate: nil, queue: nil)
    let peerID: String
    let channel = "lobby"

    init(peerID: String) {
        self.peerID = peerID
    }

    func announce() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "bitchat-\(peerID)"])
    }

    func announceChannel() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "\(peerID)-x"])
    }

    func announceKnown() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "mesh-\(channel)"])
    }

    func announceJoined() {
        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "mesh " + peerID])
    }
}
