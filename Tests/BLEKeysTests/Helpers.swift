import BLEKeys
import Testing

/// Expects `body` to throw a KeyError with this code, source, line and byte offset.
func expectKeyError(
    _ code: KeyError.Code,
    source: String,
    line: Int,
    offset: Int,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("no error", sourceLocation: sourceLocation)
    } catch let error as KeyError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.source == source, "\(error)", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("not a KeyError: \(error)", sourceLocation: sourceLocation)
    }
}
