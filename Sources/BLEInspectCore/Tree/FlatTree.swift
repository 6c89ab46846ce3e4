/// A finished tree as plain bytes, so that another thread can render it: the bytes cross
/// threads without a reference count, and the receiving thread rebuilds the tree in storage of
/// its own (`ProtocolTree.load(flat:)`).
///
/// Layout, in native byte order: six `Int`s (node count, summary length, text count, source
/// count, `derivedStart`, 1 if the node limit dropped nodes), the nodes as they are in memory,
/// the summary bytes, then each text and each data source (with its name) as an `Int` length
/// followed by its bytes.
extension ProtocolTree {
    /// The number of bytes `writeFlat` writes.
    public var flatByteCount: Int { flatByteCount(withTexts: true) }

    /// The number of bytes `writeFlat(to:withTexts:)` writes.
    public func flatByteCount(withTexts: Bool) -> Int {
        let word = MemoryLayout<Int>.size
        var n = 6 &* word &+ storedNodes &* MemoryLayout<FieldNode>.stride &+ infoCount
        if withTexts {
            for text in texts { n &+= word &+ text.utf8.count }
        }
        for (bytes, name) in zip(sources, sourceNames) { n &+= 2 &* word &+ bytes.count &+ name.utf8.count }
        return n
    }

    /// Writes the tree's bytes into `buffer`, which has room for `flatByteCount(withTexts:)` of
    /// them: one pass, no call per piece (the reading thread does this for every frame it hands
    /// over). Without the texts, the tree is written as if it had none, and `load(flat:texts:)`
    /// is given them apart: Strings cross threads as they are, where making them bytes and
    /// Strings again costs more than the rest of the tree.
    public func writeFlat(to buffer: UnsafeMutableRawBufferPointer, withTexts: Bool = true) {
        var at = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0, let to = buffer.baseAddress else { return }
            precondition(bytes.count <= buffer.count &- at, "writeFlat past flatByteCount")
            (to + at).copyMemory(from: base, byteCount: bytes.count)
            at &+= bytes.count
        }
        func putInt(_ v: Int) {
            precondition(MemoryLayout<Int>.size <= buffer.count &- at, "writeFlat past flatByteCount")
            buffer.storeBytes(of: v, toByteOffset: at, as: Int.self)
            at &+= MemoryLayout<Int>.size
        }
        func putText(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                putInt(utf8.count)
                put(UnsafeRawBufferPointer(utf8))
            }
        }
        putInt(storedNodes)
        putInt(infoCount)
        putInt(withTexts ? texts.count : 0)
        putInt(sources.count)
        putInt(derivedStart)
        putInt(overflowed ? 1 : 0)
        withNodes { put(UnsafeRawBufferPointer($0)) }
        withInfoBytes { put(UnsafeRawBufferPointer($0)) }
        if withTexts {
            for text in texts { putText(text) }
        }
        for (bytes, name) in zip(sources, sourceNames) {
            putInt(bytes.count)
            bytes.withUnsafeBytes { put($0) }
            putText(name)
        }
    }

    /// Appends the tree's bytes through `write`, in one piece.
    public func writeFlat(_ write: (UnsafeRawBufferPointer) -> Void) {
        let count = flatByteCount
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: MemoryLayout<Int>.alignment)
        defer { buffer.deallocate() }
        writeFlat(to: buffer)
        write(UnsafeRawBufferPointer(buffer))
    }

    /// Makes this tree the one `writeFlat` wrote into `flat`, reusing this tree's storage; when
    /// it was written without its texts, `texts` are they. The bytes come from this process, not
    /// from a file; a short or inconsistent buffer still only gives a shorter tree, never a read
    /// out of bounds.
    public mutating func load(flat: UnsafeRawBufferPointer, texts given: ArraySlice<String> = []) {
        if fieldMask != nil { fieldMask = nil } else { reset() }
        var at = 0
        func readInt() -> Int {
            guard at + MemoryLayout<Int>.size <= flat.count else {
                at = flat.count
                return 0
            }
            let v = flat.loadUnaligned(fromByteOffset: at, as: Int.self)
            at += MemoryLayout<Int>.size
            return v
        }
        func readBytes(_ count: Int) -> UnsafeRawBufferPointer {
            let n = max(0, min(count, flat.count - at))
            defer { at += n }
            return UnsafeRawBufferPointer(rebasing: flat[at..<(at + n)])
        }
        let nodeCount = readInt()
        let infoCount = readInt()
        let textCount = readInt()
        let sourceCount = readInt()
        let derived = readInt()
        let dropped = readInt()
        let stride = MemoryLayout<FieldNode>.stride
        let nodeBytes = readBytes(min(nodeCount, ProtocolTree.maximumNodes) &* stride)
        // `reset` left the node buffer this tree's alone and empty.
        let whole = nodeBytes.count / stride
        if whole > 0, let base = nodeBytes.baseAddress {
            // Nodes are plain bits: copied as bytes into aligned storage.
            storage.reserve(whole)
            UnsafeMutableRawPointer(storage.base).copyMemory(from: base, byteCount: whole * stride)
            storage.count = whole
            storedNodes = whole
        }
        let info = readBytes(infoCount)
        if !isKnownUniquelyReferenced(&infoStorage) { infoStorage = infoStorage.copy() }
        infoStorage.append(info.assumingMemoryBound(to: UInt8.self))
        for _ in 0..<max(0, min(textCount, flat.count)) {
            _ = intern(String(decoding: readBytes(readInt()), as: UTF8.self))
        }
        if !given.isEmpty { intern(contentsOf: given) }
        for _ in 0..<max(0, min(sourceCount, flat.count)) {
            let bytes = [UInt8](readBytes(readInt()))
            let name = String(decoding: readBytes(readInt()), as: UTF8.self)
            _ = addSource(bytes, name: name)
        }
        derivedStart = derived
        overflowed = dropped != 0
    }
}
