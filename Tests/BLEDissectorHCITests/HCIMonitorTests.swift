import BLECapture
import BLECaptureTestSupport
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The Linux monitor index records (New, Delete, Open, Close Index, Index Info): their fields,
/// summaries and malformed notes, the dispatch of non-HCI frame kinds, and agreement with tshark.
@Suite("Linux monitor index records")
struct HCIMonitorTests {
    static let registry = Dissect.registry()

    /// A monitor record of `kind` on controller `controller`, from hex text.
    static func record(_ kind: FrameKind, _ hex: String, controller: UInt16? = 0, number: Int = 1) -> CapturedFrame {
        record(kind, bytes: Hex.bytes(hex), controller: controller, number: number)
    }

    /// A monitor record of `kind` on controller `controller`.
    static func record(_ kind: FrameKind, bytes: [UInt8], controller: UInt16? = 0, number: Int = 1) -> CapturedFrame {
        CapturedFrame(
            number: number,
            timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: .unknown,
            controllerIndex: controller,
            kind: kind,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
    }

    static func one(_ frame: CapturedFrame, registry: DissectorRegistry? = nil) -> FrameSnapshot {
        Dissect.frames([frame], registry: registry ?? Self.registry)[0]
    }

    /// The New Index record of the real capture: Primary, UART, 2C:CF:67:30:E5:EF, "hci0".
    static let newIndexUART = "00 03 ef e5 30 67 cf 2c 68 63 69 30 00 00 00 00"
    /// Index Info of the same controller: manufacturer 0x0131.
    static let indexInfoCypress = "ef e5 30 67 cf 2c 31 01"

    // MARK: Core: frame kinds and the table

    @Test("monitorOpcode is the inverse of MonitorRecord.classify for every non-HCI kind")
    func opcodeInverse() {
        for opcode in UInt16(0)...40 {
            let (kind, _) = MonitorRecord.classify(opcode: opcode)
            if kind.isHCI {
                #expect(kind.monitorOpcode == nil, "\(kind.name)")
            } else if case .unknown = kind {
                #expect(kind.monitorOpcode == nil, "opcode \(opcode)")
            } else {
                #expect(kind.monitorOpcode == opcode, "\(kind.name)")
            }
        }
        let others: [FrameKind] = [.newController, .lmp, .linkLayer(linkType: 251), .unknown(0), .unknown(8)]
        for kind in others { #expect(kind.monitorOpcode == nil, "\(kind.name)") }
    }

    @Test("the registry numbers the tables: each its own slot, all within the skip masks")
    func table() {
        let slots = Self.registry.tables.values.map(\.slot)
        #expect(Set(slots).count == slots.count)
        #expect(slots.allSatisfy { $0 >= 0 && $0 < 64 })
        #expect(Self.registry.tables[StandardTables.monitorOpcode.id]?.owner == "core")
        #expect(StandardTables.monitorOpcode.id.name == "hci_mon.opcode")
        for opcode in [0, 1, 8, 9, 10] {
            let binding = Self.registry.binding(StandardTables.monitorOpcode, DissectorKey(opcode))
            #expect(binding?.owner == "hci", "opcode \(opcode)")
            #expect(binding?.keepsNoState == true, "opcode \(opcode)")
        }
        for opcode in [2, 3, 11, 12, 13, 14, 15, 16, 17] {
            #expect(Self.registry.binding(StandardTables.monitorOpcode, DissectorKey(opcode)) == nil, "\(opcode)")
        }
    }

    @Test("records with no decoder stay undecoded data, as before")
    func undecodedKinds() {
        let control = Self.one(Self.record(.controlOpen, "01 00 00 00 02 00"))
        #expect(control.has("data.data"))
        #expect(!control.has("hci_mon"))
        #expect(control.info.isEmpty)
        let vendor = Self.one(Self.record(.vendorDiagnostic, "aa bb"))
        #expect(vendor.has("data.data"))
        let note = Self.one(Self.record(.note, "68 69", controller: nil))
        #expect(note.strings("frame.note") == ["hi"])
        #expect(!note.has("hci_mon"))
        // Without the HCI module, index records are data.
        let bare: DissectorRegistry
        do {
            bare = try RegistryBuilder.build(modules: [])
        } catch {
            Issue.record("empty registry does not build: \(error)")
            return
        }
        let raw = Self.one(Self.record(.newIndex, Self.newIndexUART), registry: bare)
        #expect(raw.has("data.data"))
        #expect(raw.info.isEmpty)
    }

    @Test("skipping the monitor table leaves the frame layer only")
    func skipped() {
        var engine = DissectionEngine(registry: Self.registry)
        engine.skip(StandardTables.monitorOpcode)
        let frame = Self.record(.newIndex, Self.newIndexUART)
        let snapshot = engine.dissect(frame, wantsInfo: true) { tree in
            FrameSnapshot(frame: frame, tree: tree, registry: Self.registry)
        }
        #expect(!snapshot.has("hci_mon"))
        #expect(snapshot.uints("frame.number") == [1])
    }

    // MARK: Vectors

    @Test("New Index: type, bus, address, name and summary")
    func newIndex() {
        let s = Self.one(Self.record(.newIndex, Self.newIndexUART))
        #expect(s.has("hci_mon"))
        #expect(s.uints("hci_mon.bus") == [0x00])
        #expect(s.uints("hci_mon.type") == [0x03])
        #expect(s.addresses("hci_mon.bd_addr") == ["2C:CF:67:30:E5:EF"])
        #expect(s.strings("hci_mon.adapter_name") == ["hci0"])
        #expect(s.hex("hci_mon.adapter_name") == ["6863693000000000"])
        #expect(s.hex("hci_mon.bd_addr") == ["efe53067cf2c"])
        #expect(s.info == "New Index: hci0 2C:CF:67:30:E5:EF (Primary, UART)")
        #expect(!s.isMalformed)
        #expect(s.warnings.isEmpty)
        #expect(!s.has("data.data"))
        #expect(s.uints("frame.controller") == [0])

        let amp = Self.one(Self.record(.newIndex, "01 01 66 55 44 33 22 11 68 63 69 31 32 33 34 35"))
        #expect(amp.strings("hci_mon.adapter_name") == ["hci12345"])
        #expect(amp.info == "New Index: hci12345 11:22:33:44:55:66 (AMP, USB)")

        let odd = Self.one(Self.record(.newIndex, "07 0c 66 55 44 33 22 11 00 00 00 00 00 00 00 00"))
        #expect(odd.strings("hci_mon.adapter_name") == [""])
        #expect(odd.info == "New Index: 11:22:33:44:55:66 (Type 0x07, Bus 0x0C)")
    }

    @Test("bus value names: tshark's for 0-6, BlueZ's for 7-11")
    func busNames() throws {
        let id = try #require(Self.registry.field(named: "hci_mon.type"))
        let names = try #require(Self.registry.descriptor(id).valueNames)
        let expected = [
            "Virtual", "USB", "PC Card", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VIRTIO", "IPC",
        ]
        for (v, name) in expected.enumerated() { #expect(names.lookup(UInt64(v)) == name) }
        #expect(names.lookup(12) == nil)
        let typeID = try #require(Self.registry.field(named: "hci_mon.bus"))
        let types = try #require(Self.registry.descriptor(typeID).valueNames)
        #expect(types.lookup(0) == "Primary")
        #expect(types.lookup(1) == "AMP")
    }

    @Test("a New Index name is stored raw and escaped in the summary")
    func untrustedName() {
        let s = Self.one(Self.record(.newIndex, "00 01 66 55 44 33 22 11 1b 5b 33 31 6d e2 80 ae"))
        let raw = "\u{1B}[31m\u{202E}"
        #expect(s.strings("hci_mon.adapter_name") == [raw])
        #expect(s.info == "New Index: " + TerminalSafeText.escape(raw) + " 11:22:33:44:55:66 (Primary, USB)")
        #expect(!s.info.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    }

    @Test("Index Info: address, manufacturer and its company name")
    func indexInfo() {
        let s = Self.one(Self.record(.indexInfo, Self.indexInfoCypress))
        #expect(s.addresses("hci_mon.bd_addr") == ["2C:CF:67:30:E5:EF"])
        #expect(s.uints("hci_mon.manufacturer") == [0x0131])
        #expect(s.info == "Index Info: 2C:CF:67:30:E5:EF (Cypress Semiconductor)")
        #expect(!s.isMalformed)

        let intel = Self.one(Self.record(.indexInfo, "66 55 44 33 22 11 02 00"))
        #expect(intel.info == "Index Info: 11:22:33:44:55:66 (Intel Corp.)")
        let unknown = Self.one(Self.record(.indexInfo, "66 55 44 33 22 11 fe ff"))
        #expect(unknown.uints("hci_mon.manufacturer") == [0xFFFE])
        #expect(unknown.info == "Index Info: 11:22:33:44:55:66 (Manufacturer 0xFFFE)")
    }

    @Test(
        "Delete, Open and Close Index have no parameters",
        arguments: [
            (FrameKind.deleteIndex, "Delete Index"), (.openIndex, "Open Index"), (.closeIndex, "Close Index"),
        ]
    )
    func noParameters(kind: FrameKind, label: String) {
        let s = Self.one(Self.record(kind, "", controller: 3))
        #expect(s.has("hci_mon"))
        #expect(s.info == label)
        #expect(!s.isMalformed)
        #expect(s.warnings.isEmpty)
        #expect(!s.has("data.data"))
        #expect(s.uints("frame.controller") == [3])

        let extra = Self.one(Self.record(kind, "aa bb"))
        #expect(extra.info == label)
        #expect(!extra.isMalformed)
        #expect(extra.hex("data.data") == ["aabb"])
        #expect(extra.warnings.count == 1)
    }

    @Test("bytes after a New Index or Index Info are shown with a note")
    func trailing() {
        let s = Self.one(Self.record(.newIndex, Self.newIndexUART + " 99"))
        #expect(s.strings("hci_mon.adapter_name") == ["hci0"])
        #expect(!s.isMalformed)
        #expect(s.hex("data.data") == ["99"])
        #expect(s.warnings.count == 1)
        let info = Self.one(Self.record(.indexInfo, Self.indexInfoCypress + " 00 00"))
        #expect(info.uints("hci_mon.manufacturer") == [0x0131])
        #expect(info.hex("data.data") == ["0000"])
    }

    @Test(
        "every prefix of a record decodes without a trap, truncated when short",
        arguments: [
            (FrameKind.newIndex, HCIMonitorTests.newIndexUART, "New Index"),
            (.indexInfo, HCIMonitorTests.indexInfoCypress, "Index Info"),
        ]
    )
    func prefixes(kind: FrameKind, hex: String, label: String) {
        let bytes = Hex.bytes(hex)
        let snapshots = expectEveryPrefix(of: bytes, label, appended: [0x99], appendedMark: .warning) { cut in
            let s = Self.one(Self.record(kind, bytes: cut, number: cut.count + 1))
            #expect(s.has("hci_mon"), "\(label), \(cut.count) bytes")
            return s
        }
        for n in 0..<bytes.count {
            #expect(snapshots[n]?.info == label + " [Malformed]", "\(label), \(n) bytes")
        }
        #expect(snapshots[bytes.count]?.info.hasPrefix(label + ": ") == true)
        // Fields decoded before the cut stay.
        if kind == .newIndex {
            #expect(snapshots[1]?.uints("hci_mon.bus") == [0x00])
            #expect(snapshots[2]?.uints("hci_mon.type") == [0x03])
            #expect(snapshots[8]?.addresses("hci_mon.bd_addr") == ["2C:CF:67:30:E5:EF"])
            #expect(snapshots[15]?.has("hci_mon.adapter_name") == false)
        } else {
            #expect(snapshots[6]?.addresses("hci_mon.bd_addr") == ["2C:CF:67:30:E5:EF"])
            #expect(snapshots[7]?.has("hci_mon.manufacturer") == false)
        }
    }

    @Test("random records of every kind never trap")
    func random() {
        var rng = SplitMix64(seed: 0x4D4F_4E49)
        let kinds: [FrameKind] = [.newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo]
        var frames: [CapturedFrame] = []
        for i in 0..<500 {
            let count = Int(rng.next() % 24)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let controller = UInt16(truncatingIfNeeded: rng.next())
            frames.append(Self.record(kinds[i % kinds.count], bytes: bytes, controller: controller, number: i + 1))
        }
        for s in Dissect.frames(frames, registry: Self.registry) {
            #expect(s.has("hci_mon"))
            #expect(!s.info.isEmpty)
        }
    }

    // MARK: Capture files

    @Test("a btsnoop 2001 file of every index record")
    func builtCapture() throws {
        let dir = TemporaryDirectory()
        let b = CaptureBytes.self
        let bytes =
            b.btsnoopHeader(datalink: 2001)
            + b.btsnoopRecord(Hex.bytes(Self.newIndexUART), flags: 0x0001_0000, unixMicros: 0)
            + b.btsnoopRecord([], flags: 0x0001_0008, unixMicros: 1)
            + b.btsnoopRecord(Hex.bytes(Self.indexInfoCypress), flags: 0x0001_000A, unixMicros: 2)
            + b.btsnoopRecord([], flags: 0x0001_0009, unixMicros: 3)
            + b.btsnoopRecord([], flags: 0x0001_0001, unixMicros: 4)
        let path = dir.write(bytes, to: "index.btsnoop")
        let frames = CaptureFiles.readAll(path).frames
        #expect(frames.map(\.kind) == [.newIndex, .openIndex, .indexInfo, .closeIndex, .deleteIndex])
        let snapshots = Dissect.frames(frames, registry: Self.registry)
        #expect(
            snapshots.map(\.info) == [
                "New Index: hci0 2C:CF:67:30:E5:EF (Primary, UART)", "Open Index",
                "Index Info: 2C:CF:67:30:E5:EF (Cypress Semiconductor)", "Close Index", "Delete Index",
            ]
        )
        #expect(snapshots.allSatisfy { $0.has("hci_mon") && !$0.isMalformed && $0.uints("frame.controller") == [1] })
    }

    @Test(
        "the real monitor capture: notes, New Index, Open Index, Index Info, Control Open",
        .enabled(if: TestPaths.sharedCapturesAvailable)
    )
    func realCapture() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("batteread_capture.btsnoop").path
        let snapshots = Dissect.capture(path)
        try #require(snapshots.count == 6)
        #expect(
            snapshots.map(\.frame.kind) == [.note, .note, .newIndex, .openIndex, .indexInfo, .controlOpen]
        )
        #expect(snapshots[2].info == "New Index: hci0 2C:CF:67:30:E5:EF (Primary, UART)")
        #expect(snapshots[3].info == "Open Index")
        #expect(snapshots[4].info == "Index Info: 2C:CF:67:30:E5:EF (Cypress Semiconductor)")
        #expect(snapshots[5].has("data.data"))
        #expect(snapshots.allSatisfy { !$0.isMalformed && $0.warnings.isEmpty })
    }

    /// The fields compared with tshark, and how each is written for comparison.
    static let comparedFields = [
        "hci_mon.bus", "hci_mon.type", "hci_mon.bd_addr", "hci_mon.adapter_name", "hci_mon.manufacturer",
    ]

    /// Our values of `name` as tshark's `-T fields` writes them.
    static func tsharkForm(_ s: FrameSnapshot, _ name: String) -> String {
        switch name {
        case "hci_mon.bd_addr": s.addresses(name).map { $0.lowercased() }.joined(separator: ",")
        case "hci_mon.adapter_name": s.strings(name).joined(separator: ",")
        default: s.tsharkText(name)
        }
    }

    @Test(
        "the real monitor capture agrees with tshark field by field",
        .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil)
    )
    func tsharkAgreement() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("batteread_capture.btsnoop").path
        let snapshots = Dissect.capture(path)
        let rows = try Run.tsharkFields(path, Self.comparedFields)
        try #require(rows.count == snapshots.count)
        var compared = 0
        for (s, row) in zip(snapshots, rows) {
            let theirs = row + Array(repeating: "", count: max(0, Self.comparedFields.count - row.count))
            for (i, name) in Self.comparedFields.enumerated() {
                #expect(Self.tsharkForm(s, name) == theirs[i], "frame \(s.frame.number) \(name)")
                if !theirs[i].isEmpty { compared += 1 }
            }
        }
        // New Index: bus, type, address, name; Index Info: address, manufacturer.
        #expect(compared == 6)
    }

    @Test(
        "filters select the same index records as tshark's",
        .enabled(if: TestPaths.sharedCapturesAvailable && Run.tshark != nil && HCIMonitorTests.binaryBuilt),
        arguments: [
            "hci_mon.bus == 1", "hci_mon.bus == 0", "hci_mon.type == 3", "hci_mon.manufacturer == 0x0131",
            "hci_mon.adapter_name == \"hci0\"", "hci_mon.bd_addr == 2c:cf:67:30:e5:ef",
        ]
    )
    func filters(expression: String) throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("batteread_capture.btsnoop").path
        let theirs = try Run.tsharkFilter(path, expression)
        let result = try Run.bleinspect(["read", "-T", "fields", "-e", "frame.number", "-Y", expression, path])
        #expect(result.status == 0, "\(result.stderr)")
        let ours = result.stdoutText.split(separator: "\n").compactMap { Int($0) }
        #expect(ours == theirs, "\(expression)")
    }

    @Test("every hci_mon field exists in tshark with the same type and base", .enabled(if: Run.tshark != nil))
    func fieldNames() throws {
        guard let tshark = Run.tshark else { return }
        let out = try Run.program(tshark, ["-G", "fields"]).stdoutText
        var known: [String: (type: String, base: String)] = [:]
        for line in out.split(separator: "\n") {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if cols.first == "P", cols.count >= 3 { known[cols[2]] = ("FT_PROTOCOL", "") }
            if cols.first == "F", cols.count >= 6 { known[cols[2]] = (cols[3], cols[5]) }
        }
        let ours = Self.registry.fields.filter { $0.abbrev == "hci_mon" || $0.abbrev.hasPrefix("hci_mon.") }
        #expect(ours.count == 6)
        for d in ours {
            guard let theirs = known[d.abbrev] else {
                Issue.record("\(d.abbrev) is not a tshark field")
                continue
            }
            switch d.kind {
            case .layer: #expect(theirs.type == "FT_PROTOCOL", "\(d.abbrev)")
            case .unsigned(let bits):
                #expect(theirs.type == "FT_UINT\(bits)", "\(d.abbrev)")
                #expect((d.base == .hex) == (theirs.base == "BASE_HEX"), "\(d.abbrev)")
            case .address: #expect(theirs.type == "FT_ETHER", "\(d.abbrev)")
            case .string: #expect(theirs.type == "FT_STRING", "\(d.abbrev)")
            default: Issue.record("\(d.abbrev): unexpected kind")
            }
        }
    }

    static let binaryBuilt = FileManager.default.isExecutableFile(atPath: TestPaths.bleinspectBinary.path)

    @Test("bleinspect read and fields show the index records", .enabled(if: HCIMonitorTests.binaryBuilt))
    func commandLine() throws {
        let dir = TemporaryDirectory()
        let b = CaptureBytes.self
        let bytes =
            b.btsnoopHeader(datalink: 2001)
            + b.btsnoopRecord(Hex.bytes(Self.newIndexUART), flags: 0x0000_0000, unixMicros: 0)
            + b.btsnoopRecord([], flags: 0x0000_0008, unixMicros: 1)
            + b.btsnoopRecord(Hex.bytes(Self.indexInfoCypress), flags: 0x0000_000A, unixMicros: 2)
        let path = dir.write(bytes, to: "index.btsnoop")

        let lines = try Run.bleinspect(["read", path]).stdoutText
        #expect(lines.contains("HCI_MON  New Index: hci0 2C:CF:67:30:E5:EF (Primary, UART)"))
        #expect(lines.contains("Index Info: 2C:CF:67:30:E5:EF (Cypress Semiconductor)"))

        let verbose = try Run.bleinspect(["read", "-V", path]).stdoutText
        #expect(verbose.contains("Bluetooth Linux Monitor Transport"))
        #expect(verbose.contains("Bus: UART (0x03)"))
        #expect(verbose.contains("Manufacturer: Cypress Semiconductor (0x0131)"))

        let fields = try Run.bleinspect(["read", "-T", "fields", "-e", "hci_mon.adapter_name", path]).stdoutText
        #expect(fields == "hci0\n\n\n")

        let filtered = try Run.bleinspect([
            "read", "-T", "fields", "-e", "frame.number", "-Y", "hci_mon.type == 3", path,
        ])
        #expect(filtered.stdoutText == "1\n")

        let json = try Run.bleinspect(["read", "-T", "json", path]).stdoutText.split(separator: "\n")
        try #require(json.count == 3)
        let first = try JSONSerialization.jsonObject(with: Data(json[0].utf8)) as? [String: Any]
        let layer = (first?["layers"] as? [String: Any])?["hci_mon"] as? [String: Any]
        #expect(layer?["hci_mon.adapter_name"] as? String == "hci0")
        #expect(layer?["hci_mon.type"] as? Int == 3)

        let list = try Run.bleinspect(["fields"]).stdoutText.split(separator: "\n").compactMap {
            $0.split(separator: "\t").first.map(String.init)
        }
        for name in ["hci_mon", "hci_mon.bus", "hci_mon.type", "hci_mon.bd_addr", "hci_mon.adapter_name"] {
            #expect(list.contains(name), "\(name)")
        }
        #expect(list.contains("hci_mon.manufacturer"))
    }
}
