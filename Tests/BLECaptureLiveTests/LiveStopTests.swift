import BLECaptureLive
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("LiveStop")
struct LiveStopTests {
    @Test("a request wakes a wait on a descriptor that never becomes readable")
    func requestWakesWait() throws {
        let stop = try LiveStop()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { for fd in fds { close(fd) } }
        stop.request()
        #expect(stop.wait(for: fds[0]) == .stopped)
        #expect(stop.reason == .requested)
    }

    @Test("a readable descriptor is ready; a deadline stops the wait")
    func readyAndDeadline() throws {
        let stop = try LiveStop()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { for fd in fds { close(fd) } }
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(stop.wait(for: fds[0]) == .ready)
        #expect(read(fds[0], &byte, 1) == 1)
        stop.stop(after: 0.05)
        let start = LiveStop.now()
        #expect(stop.wait(for: fds[0]) == .stopped)
        #expect(stop.reason == .deadline)
        let waited = LiveStop.now() - start
        #expect(waited >= 40_000_000 && waited < 2_000_000_000)
    }

    @Test("a timeout returns without stopping")
    func timeout() throws {
        let stop = try LiveStop()
        #expect(stop.wait(for: nil, timeout: 10) == .timedOut)
        #expect(stop.reason == nil)
    }
}
