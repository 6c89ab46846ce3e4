/// The exit statuses of bleinspect, after BSD sysexits.
public enum ExitStatus: Int32, Sendable, Error {
    case success = 0
    /// The command line was wrong.
    case usage = 64
    /// An input was read but is damaged or is not a capture.
    case damagedInput = 65
    /// An input could not be read at all: missing, a directory, empty, no permission.
    case unreadableInput = 66
    /// An internal error (a bug): the dissector registry did not build.
    case software = 70
    /// An output could not be written.
    case cannotCreateOutput = 73
}
