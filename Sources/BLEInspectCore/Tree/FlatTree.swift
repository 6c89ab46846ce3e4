/// A finished tree as plain bytes, so that another thread can render it: the bytes cross
/// threads without a reference count, and the receiving thread rebuilds the tree in storage of
/// its own (`ProtocolTree.load(flat:)`).
///
/// Layout, in native byte order: six `Int`s (node count, summary length, text count, source
/// count, `derivedStart`, 1 if the node limit dropped nodes), the nodes as they are in memory,
/// the summary bytes, then each text and each data source (with its name) as an `Int` length
/// followed by its bytes.
extension ProtocolTree {
    /// Appends the tree's bytes through `write`, in pieces.
    public func writeFlat(_ write: (UnsafeRawBufferPointer) -> Void) {
        func writeInt(_ v: Int) { withUnsafeBytes(of: v) { write($0) } }
        func writeBytes(_ bytes: UnsafeRawBufferPointer) {
            writeInt(bytes.count)
            write(bytes)
        }
        // One piece (a homogeneous tuple is laid out as an array is, with no heap allocation).
        let header = (storedNodes, infoCount, texts.count, sources.count, derivedStart, overflowed ? 1 : 0)
        withUnsafeBytes(of: header) { write($0) }
        withNodes { write(UnsafeRawBufferPointer($0)) }
        withInfoBytes { write(UnsafeRawBufferPointer($0)) }
        for text in texts {
            var text = text
            text.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
        }
        for (bytes, name) in zip(sources, sourceNames) {
            bytes.withUnsafeBytes { writeBytes($0) }
            var name = name
            name.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Makes this tree the one `writeFlat` wrote into `flat`, reusing this tree's storage. The
    /// bytes come from this process, not from a file; a short or inconsistent buffer still only
    /// gives a shorter tree, never a read out of bounds.
    public mutating func load(flat: UnsafeRawBufferPointer) {
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
        for _ in 0..<max(0, min(sourceCount, flat.count)) {
            let bytes = [UInt8](readBytes(readInt()))
            let name = String(decoding: readBytes(readInt()), as: UTF8.self)
            _ = addSource(bytes, name: name)
        }
        derivedStart = derived
        overflowed = dropped != 0
    }
}
