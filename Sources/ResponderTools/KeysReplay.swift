import EventTime
import InputCodes
import RemoteControl
import ResponderConfig
import ResponderCore
import SystemCalls
import TouchScenes

/// `responderctl keys replay FILE.evemu`: runs the daemon's key interpreter on an evemu recording,
/// on the recording's clock (virtual time), and reports every remote-control event it emits.
public enum KeysReplay {
  /// A recording that could not be read: the file, the line and what is wrong.
  public struct Error: Swift.Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var message: String
    /// `FILE:LINE: message` (no line when the file could not be read at all).
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
  }

  /// What a replay produced.
  public struct Result {
    /// The device as the recording's `N:` and `I:` lines describe it.
    public var identity: InputDeviceIdentity
    /// How the device rules treat it (ignored devices produce nothing).
    public var profile: DeviceKeyProfile
    /// The events emitted, in order; timestamps on the recording's clock.
    public var emissions: [RemoteControlEmission]

    /// One JSON object per emitted event:
    /// `{"t": 1.75, "type": "remoteControl", "subtype": "nextTrack"}`.
    public var jsonLines: [String] { emissions.map(KeysReplay.jsonLine) }
  }

  /// The source name replayed events carry.
  public static let source = "replay"

  /// Replays the text of a recording; `file` names it in errors.
  public static func run(text: String, file: String, settings: KeySettings) throws(Error) -> Result {
    let recording: EvemuRecording
    do {
      recording = try EvemuRecording(text: text)
    } catch let error as EvemuRecording.ParseError {
      throw Error(file: file, line: error.line, message: error.message)
    } catch {
      throw Error(file: file, line: 0, message: "\(error)")
    }
    return run(recording, settings: settings)
  }

  /// Replays a parsed recording: each event is handed over at its time on a virtual clock, and at
  /// the end time runs on until every pending decision has been made.
  public static func run(_ recording: EvemuRecording, settings: KeySettings) -> Result {
    let start = recording.events.first?.time ?? 0
    let scheduler = VirtualScheduler(now: start)
    var emissions: [RemoteControlEmission] = []
    let interpreter = KeyInterpreter(settings: settings, scheduler: scheduler) { emissions.append($0) }
    let profile = interpreter.deviceAdded(source, identity: recording.identity)
    for event in recording.events {
      scheduler.advance(to: event.time)
      interpreter.handle(event, from: source)
    }
    scheduler.runUntilIdle()
    return Result(identity: recording.identity, profile: profile, emissions: emissions)
  }

  /// Reads and replays a file.
  public static func run(path: String, settings: KeySettings) throws(Error) -> Result {
    let text: String
    do {
      text = try readTextFile(path)
    } catch {
      throw Error(file: path, line: 0, message: "cannot read the file: \(error.errno)")
    }
    return try run(text: text, file: path, settings: settings)
  }

  /// `{"t": 1.75, "type": "remoteControl", "subtype": "nextTrack"}`.
  public static func jsonLine(_ emission: RemoteControlEmission) -> String {
    JSON.object([
      ("t", .raw(formatSeconds(emission.timestamp))), ("type", .string("remoteControl")),
      ("subtype", .string(emission.subtype.name)),
    ]).text
  }

  /// Seconds as a JSON number rounded to the microsecond, without trailing zeros ("1.75", "2.0").
  public static func formatSeconds(_ seconds: Seconds) -> String {
    let text = formatNumber(seconds, decimals: 6)
    return text.contains(".") || text.contains("e") ? text : text + ".0"
  }
}
