import BLEInspectCore
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEInspectPlugins

/// `psm: true`: a PSM an app publishes in its own attribute or in its advertising data, linked
/// to the channel opened on it as the L2CAP PSM characteristic is.
@Suite("plugin PSM fields")
struct PluginPSMTests {
    static let profile = """
        plugin: psmapp
        characteristics:
          - uuid: 0xFFF1
            name: Chat Port
            fields:
              - {name: port, type: json, members: [{name: port, type: integer, psm: true}]}
        advertising:
          - manufacturer: 0xFFFF
            prefix: 50 53
            fields:
              - {name: psm, type: uint16, endian: big, psm: true}
        """

    static func registry() throws -> DissectorRegistry {
        let plugin = try PluginCompiler.compile(profile, file: "psmapp.yaml").get()
        return try Toolkit().registry(plugins: PluginCatalog(plugins: [plugin]))
    }

    /// An LE Credit Based Connection Request on connection 0x0040 for `psm`.
    static func request(_ psm: UInt16, sent: Bool, number: Int) -> CapturedFrame {
        let signalling: [UInt8] = [
            0x14, 0x01, 0x0A, 0x00, UInt8(psm & 0xFF), UInt8(psm >> 8), 0x40, 0x00, 0x00, 0x01, 0x40, 0x00, 0x04,
            0x00,
        ]
        let l2cap = [UInt8(signalling.count), 0, 0x05, 0x00] + signalling
        return SequenceCounterTests.Frames.make(
            .aclData,
            [0x40, 0x20, UInt8(l2cap.count), 0] + l2cap,
            sent: sent,
            number: number
        )
    }

    @Test("an advertised PSM names the advert on the channel request, with the range warning")
    func advertised() throws {
        let registry = try Self.registry()
        let s = SequenceCounterTests.dissect(
            [
                SequenceCounterTests.advert(1, [0xFF, 0xFF, 0x50, 0x53, 0x00, 0xC5], number: 1),
                SequenceCounterTests.advert(2, [0xFF, 0xFF, 0x50, 0x53, 0x00, 0x25], number: 2),
                Self.request(0x00C5, sent: true, number: 3),
            ],
            registry
        )
        #expect(s[0].uints("psmapp.psm") == [0xC5])
        #expect(s[0].info.contains("L2CAP PSM: 0x00c5"), "\(s[0].info)")
        #expect(SequenceCounterTests.experts(s[0]).isEmpty)
        #expect(SequenceCounterTests.experts(s[1]) == ["PSM 0x0025 is outside the LE dynamic range 0x0080..0x00ff"])
        #expect(s[2].uints("coc.psm_published_in") == [1])
        #expect(s[2].uints("coc.psm_published_via") == [4])
        #expect(s[2].info.contains("PSM advertised in #1"), "\(s[2].info)")
    }

    @Test("a PSM in a notified JSON member names the notification; a PSM the same side wrote does not count")
    func notifiedAndWritten() throws {
        let registry = try Self.registry()
        let json = Array(#"{"port":131}"#.utf8)
        let s = SequenceCounterTests.dissect(
            [
                SequenceCounterTests.acl([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], sent: true, number: 1),
                SequenceCounterTests.acl(
                    [0x09, 0x07, 0x10, 0x00, 0x12, 0x11, 0x00, 0xF1, 0xFF],
                    sent: false,
                    number: 2
                ),
                // The local host writes PSM 0x0084 into the peer's attribute: not a publication.
                SequenceCounterTests.acl([0x52, 0x11, 0x00] + Array(#"{"port":132}"#.utf8), sent: true, number: 3),
                SequenceCounterTests.acl([0x1B, 0x11, 0x00] + json, sent: false, number: 4),
                Self.request(0x0083, sent: true, number: 5),
                Self.request(0x0084, sent: true, number: 6),
            ],
            registry
        )
        #expect(s[3].values("psmapp.port.port").count == 1)
        #expect(s[4].uints("coc.psm_published_in") == [4])
        #expect(s[4].uints("coc.psm_published_via") == [2])
        #expect(s[5].uints("coc.psm_published_in") == [])
    }

    @Test("psm: needs an unsigned integer and true or false")
    func spellings() {
        func compile(_ field: String) -> Result<CompiledPlugin, PluginRejection> {
            PluginCompiler.compile(
                "plugin: p\ncharacteristics:\n  - uuid: 0xFFF1\n    fields:\n      - \(field)\n",
                file: "p.yaml"
            )
        }
        #expect((try? compile("{name: a, type: uint16, psm: true}").get()) != nil)
        #expect((try? compile("{name: a, type: int16, psm: true}").get()) == nil)
        #expect((try? compile("{name: a, type: uint16, psm: yes}").get()) == nil)
        #expect((try? compile("{name: a, type: utf8, psm: true}").get()) == nil)
    }
}
