// An Android advertiser: adv-budget does not read Kotlin, and must say so.
class Advertiser(private val advertiser: android.bluetooth.le.BluetoothLeAdvertiser) {
    fun start() = advertiser.startAdvertising(settings, data, callback)
}
