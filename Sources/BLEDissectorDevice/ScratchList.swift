/// A list of plain values reused from frame to frame: emptying it only sets its count to zero (an
/// array's `removeAll(keepingCapacity:)` costs a generic call each frame), and its storage grows
/// to the most elements one frame needed.
struct ScratchList<Element: BitwiseCopyable> {
    private var storage: [Element] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var indices: Range<Int> { 0..<count }
    var first: Element? { count > 0 ? storage[0] : nil }

    subscript(i: Int) -> Element {
        get {
            precondition(i < count, "index past the list's end")
            return storage[i]
        }
        set {
            precondition(i < count, "index past the list's end")
            storage[i] = newValue
        }
    }

    mutating func append(_ element: Element) {
        if count < storage.count {
            storage[count] = element
        } else {
            storage.append(element)
        }
        count += 1
    }

    mutating func removeAll() { count = 0 }
}
