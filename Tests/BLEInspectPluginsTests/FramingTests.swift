import BLEInspectCore
import Testing

@testable import BLEInspectPlugins

/// The framing step on its own: messages cut from SDUs that split and join them arbitrarily.
@Suite struct FramingTests {
    static let key = PluginStreams.Key(connection: .init(controller: 0, handle: 1), cid: 0x40, direction: 1, psm: 0x81)

    static func cut(_ sdus: [[UInt8]], _ framing: Framing) -> [[UInt8]] {
        let streams = PluginStreams()
        return sdus.flatMap { streams.feed($0, key: key, framing: framing).messages }
    }

    @Test func delimiterAcrossSDUs() {
        let f = Framing(mode: .delimiter(Array("EOF".utf8)), chunk: nil, padding: nil, maximumMessage: 100)
        let stream = Array("helloEOFworldEOFEOF!".utf8)
        // Every way of splitting the stream in two gives the same messages.
        for split in 0...stream.count {
            let out = Self.cut([Array(stream[..<split]), Array(stream[split...])], f)
            #expect(out.map { String(decoding: $0, as: UTF8.self) } == ["hello", "world", ""], "split \(split)")
        }
    }

    @Test func paddedChunks() {
        let f = Framing(mode: .delimiter(Array("EOF".utf8)), chunk: 8, padding: 0x20, maximumMessage: 100)
        // "abEOF   " | "0123456" "7EOF    " (a message across two chunks)
        let stream = Array("abEOF   01234567EOF     ".utf8)
        let out = Self.cut(stream.map { [$0] }, f)
        #expect(out.map { String(decoding: $0, as: UTF8.self) } == ["ab", "01234567"])
    }

    @Test func lengthPrefixed() {
        let f = Framing(
            mode: .lengthPrefix(size: 2, bigEndian: false, adjust: 0),
            chunk: nil,
            padding: nil,
            maximumMessage: 100
        )
        let out = Self.cut([[3, 0, 1, 2], [3, 0, 0], [], [1, 0, 9]], f)
        #expect(out == [[1, 2, 3], [], [9]])
    }

    @Test func fixedChunks() {
        let f = Framing(mode: .chunks, chunk: 4, padding: 0, maximumMessage: 100)
        let out = Self.cut([[1, 2, 0, 0, 5], [6, 7, 8, 9, 0, 0, 0]], f)
        #expect(out == [[1, 2], [5, 6, 7, 8], [9]])
    }

    @Test func badLengthIsDropped() {
        let f = Framing(
            mode: .lengthPrefix(size: 1, bigEndian: false, adjust: -5),
            chunk: nil,
            padding: nil,
            maximumMessage: 100
        )
        let streams = PluginStreams()
        let r = streams.feed([1, 2, 3], key: Self.key, framing: f)
        #expect(r.messages.isEmpty && r.buffered == 0 && r.notes.count == 1)
    }
}
