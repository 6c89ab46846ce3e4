public import BLEDissectorTestSupport
public import BLEInspectCore
import BLEInspectSession

/// The built-in modules: the stack the tests of the whole tool decode with.
public enum Dissect: DissectorStack {
    public static var modules: [any DissectorModule.Type] { StandardModules.builtIn }
}
