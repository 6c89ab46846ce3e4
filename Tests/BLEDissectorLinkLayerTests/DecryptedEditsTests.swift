import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import BLEKeys
import Testing

@testable import BLEDissectorLinkLayer

/// `LinkLayerModule.decryptedEdits`: the encrypted PDUs of `EncryptedConnection.scenario` carry
/// the edits that write them decrypted when it is on (the default, and `-w`), none when it is off
/// (the commands when they write nothing); they decrypt the same either way.
@Suite("decrypted packets' edits")
struct DecryptedEditsTests {
    @Test(arguments: [true, false])
    func editsOnlyWhenAsked(edits: Bool) throws {
        let path = try Decrypting.file(EncryptedConnection.scenario(), "ll-edits")
        var configuration = RegistryConfiguration()
        configuration[LinkLayerModule.longTermKeys] = [try LongTermKey.argument(DecryptionTests.key)]
        configuration[LinkLayerModule.decryptedEdits] = edits
        let registry = try RegistryBuilder.registering(modules: Dissect.modules).build(configuration: configuration)
        let frames = CaptureFiles.readAll(path).frames
        var engine = DissectionEngine(registry: registry)
        var edited: [Int] = []
        for (i, frame) in frames.enumerated() {
            engine.dissect(frame, wantsInfo: false) { _ in }
            if !engine.edits.isEmpty { edited.append(i + 1) }
        }
        let decrypted = Dissect.frames(frames, registry: registry).filter { $0.bools("ll.decrypted") == [true] }
        let sent = [6, 7, 8, 11, 13, 14, 16, 17]
        #expect(decrypted.map(\.frame.number) == sent)
        #expect(edited == (edits ? sent : []))
    }
}
