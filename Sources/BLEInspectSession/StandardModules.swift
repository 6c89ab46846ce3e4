import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorLinkLayer
import BLEDissectorSMP
public import BLEInspectCore

/// The dissector modules built into bleinspect, in registration order (order does not matter:
/// bindings are resolved after every module has registered). The one list of them: adding a
/// dissector module is its folder, its name in `Package.swift`'s `dissectors`, and its type here
/// (a test checks that the two lists agree).
public enum StandardModules {
    /// Computed, not stored: a stored array of metatypes is global state that Swift 6 cannot
    /// prove safe to share between threads.
    public static var builtIn: [any DissectorModule.Type] {
        [
            HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self,
            LinkLayerModule.self,
        ]
    }

    /// The registry of the built-in modules alone, with no plugins and no configuration (for tests
    /// and tools; a command decodes with its `Session`).
    public static func registry() throws(RegistryError) -> DissectorRegistry {
        try RegistryBuilder.build(modules: builtIn)
    }
}
