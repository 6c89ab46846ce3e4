import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorSMP
public import BLEInspectCore

/// The dissector modules built into bleinspect, in registration order (order does not matter:
/// bindings are resolved after every module has registered).
public enum StandardModules {
    /// Computed, not stored: a stored array of metatypes is global state that Swift 6 cannot prove
    /// safe to share between threads.
    public static var all: [any DissectorModule.Type] {
        [HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self]
    }

    /// The registry of the standard modules. Fails only on a programming error (a duplicate key
    /// or field), which the tests catch.
    public static func registry() throws(RegistryError) -> DissectorRegistry {
        try RegistryBuilder.build(modules: all)
    }
}
