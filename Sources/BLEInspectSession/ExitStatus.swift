public import BLECapture

/// The exit statuses of bleinspect, after BSD sysexits.
public enum ExitStatus: Int32, Sendable, Error {
    case success = 0
    /// The command line was wrong.
    case usage = 64
    /// An input was read but is damaged or is not a capture.
    case damagedInput = 65
    /// An input could not be read at all: missing, a directory, empty, no permission.
    case unreadableInput = 66
    /// Live capture: no such controller.
    case noSuchController = 68
    /// Live capture: the kernel has no Bluetooth support.
    case noBluetooth = 69
    /// An internal error (a bug): the dissector registry did not build.
    case software = 70
    /// An output could not be written.
    case cannotCreateOutput = 73
    /// A live source failed while being read.
    case readFailed = 74
    /// The controller being captured went away. `live` no longer ends for that (it waits for
    /// the controller to return), so it no longer exits with this status; the number is kept
    /// so that it is not given another meaning.
    case controllerGone = 75
    /// Live capture: no permission to open the HCI monitor channel.
    case permissionDenied = 77
    /// A plugin named on the command line was rejected (its errors are printed).
    case badPlugin = 78

    /// The status that reports `error`.
    public init(_ error: CaptureError) {
        switch error.code {
        case .writeFailed: self = .cannotCreateOutput
        case .noBluetooth: self = .noBluetooth
        case .permissionDenied: self = .permissionDenied
        case .noSuchController: self = .noSuchController
        case .controllerGone: self = .controllerGone
        case .readFailed: self = .readFailed
        default: self = error.isDamage ? .damagedInput : .unreadableInput
        }
    }
}
