/// Helpers shared by the suites that compare bleinspect's filters with tshark's on captures.
enum CaptureComparison {
    /// `body` on each item, two at a time (each is a dissection here and tshark passes, and the
    /// machine is shared); the results in the items' order.
    static func twoAtATime<Item: Sendable, Result: Sendable>(
        _ items: [Item],
        _ body: @escaping @Sendable (Item) throws -> Result
    ) async throws -> [Result] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var pending = items.enumerated().makeIterator()
            var results: [(Int, Result)] = []
            for _ in 0..<2 {
                if let (k, item) = pending.next() { group.addTask { (k, try body(item)) } }
            }
            while let r = try await group.next() {
                results.append(r)
                if let (k, item) = pending.next() { group.addTask { (k, try body(item)) } }
            }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Where two frame lists part: the first `limit` frames only one side has, as
    /// "only bleinspect [3, 9], only tshark [4]".
    static func framesApart(_ ours: [Int], _ theirs: [Int], limit: Int = 5) -> String {
        let onlyOurs = Set(ours).subtracting(theirs).sorted().prefix(limit)
        let onlyTheirs = Set(theirs).subtracting(ours).sorted().prefix(limit)
        var parts: [String] = []
        if !onlyOurs.isEmpty { parts.append("only bleinspect \(Array(onlyOurs))") }
        if !onlyTheirs.isEmpty { parts.append("only tshark \(Array(onlyTheirs))") }
        return parts.joined(separator: ", ")
    }
}
