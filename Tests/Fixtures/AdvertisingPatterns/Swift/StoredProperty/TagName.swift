import CoreBluetooth

/// A global name changed with `+=`: not followed.
var tagName = "Tag"

func renameTag() {
    tagName += "-2"
}

func advertiseTag(manager: CBPeripheralManager) {
    manager.startAdvertising([CBAdvertisementDataLocalNameKey: tagName])
}
