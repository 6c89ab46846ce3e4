import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import BLEInspectFilter
import Foundation
import Testing

/// End to end: the display filter selects frames by the device fields, in-process and through
/// `bleinspect read -Y`.
@Suite("device tracking: display filters")
struct DeviceFilterTests {
    /// The frames of `path` that `filter` matches, through the engine and the filter.
    func matching(_ filter: String, _ path: String) throws -> [Int] {
        let registry = Dissect.registry()
        let compiled = try DisplayFilter.compile(filter, registry: registry)
        var engine = DissectionEngine(registry: registry)
        var out: [Int] = []
        for frame in CaptureFiles.readAll(path).frames {
            let hit = engine.dissect(frame, wantsInfo: false) { tree in
                compiled.matches(tree, frameBytes: frame.bytes)
            }
            if hit { out.append(frame.number) }
        }
        return out
    }

    @Test("device.addr == c0:de:c0:de:00:02 selects the peripheral's frames in gatt-discovery")
    func byAddress() throws {
        let path = TestPaths.projectCapture("gatt-discovery.btsnoop")
        #expect(try matching("device.addr == c0:de:c0:de:00:02", path) == numbers(29, 31...98, 100))
        #expect(try matching("device.addr == c0:de:c0:de:00:01", path) == [])
        #expect(try matching("device && !device.connection", path) == [29])
    }

    @Test("device.name contains \"periph\" selects the frames from the GATT Device Name on")
    func byName() throws {
        let path = TestPaths.projectCapture("gatt-discovery.btsnoop")
        #expect(try matching("device.name contains \"periph\"", path) == numbers(85...98, 100))
        let adv = TestPaths.projectCapture("adv-scan.btsnoop")
        #expect(try matching("device.name == \"bleinspect\"", adv) == numbers(33...40))
    }

    @Test("bleinspect read -Y with device fields")
    func command() throws {
        let path = TestPaths.projectCapture("smp-pairing.btsnoop")
        let result = try Run.bleinspect([
            "read", "-T", "fields", "-e", "frame.number", "-Y", "device.identity_addr == c0:de:c0:de:00:02", path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = result.stdoutText.split(separator: "\n").compactMap { Int($0) }
        #expect(frames == numbers(53...61, 63))
    }
}
