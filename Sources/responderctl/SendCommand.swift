import DBus
import ResponderClient
import ResponderCore
import ResponderTools
import ResponderdKit
import TouchScenes

/// `responderctl send`: injects an event through responderd.
enum SendCommand {
  static var command: Command {
    Command(
      name: "send",
      abstract: "Inject an event through responderd and print who handled it.",
      discussion:
        "Exits with 1 when no responder handled the event (as playerctl does when no player acted).",
      subcommands: [SendRemoteControlCommand.command, SendMotionCommand.command])
  }
}

/// `responderctl send remoteControl SUBTYPE` (also `remote-control`).
struct SendRemoteControlCommand {
  static var command: Command {
    Command(
      name: "remoteControl", aliases: ["remote-control"],
      abstract: "Send a remoteControl event: "
        + EventSubtype.remoteControlSubtypes.map(\.name).joined(separator: ", ") + ".",
      arguments: [
        .positional(
          "subtype", help: "The subtype (nextTrack, next-track or remoteControlNextTrack).",
          completion: .choices(EventSubtype.remoteControlSubtypes.map(\.name))),
        .json,
      ]
    ) { arguments in
      let command = SendRemoteControlCommand(
        subtype: arguments.string("subtype")!, json: arguments.flag("json"))
      try command.validate()
      try command.run()
    }
  }

  var subtype: String
  var json = false

  func validate() throws {
    guard let parsed = EventSubtype(name: subtype), parsed.eventType == .remoteControl else {
      throw ValidationError(
        "unknown remoteControl subtype '\(subtype)'; one of: "
          + EventSubtype.remoteControlSubtypes.map(\.name).joined(separator: ", "))
    }
  }

  func run() throws {
    let name = EventSubtype(name: subtype)!.name
    try sendEvent(type: "remoteControl", subtype: name, phase: nil, json: json)
  }
}

/// `responderctl send motion began|ended|cancelled`.
struct SendMotionCommand {
  static var command: Command {
    Command(
      name: "motion", abstract: "Send a shake (motionShake) event in one phase: began, ended or cancelled.",
      arguments: [
        .positional(
          "phase", help: "began, ended or cancelled.", completion: .choices(["began", "ended", "cancelled"])),
        .json,
      ]
    ) { arguments in
      let command = SendMotionCommand(phase: arguments.string("phase")!, json: arguments.flag("json"))
      try command.validate()
      try command.run()
    }
  }

  var phase: String
  var json = false

  func validate() throws {
    guard MotionPhase(rawValue: phase.lowercased()) != nil else {
      throw ValidationError("unknown motion phase '\(phase)'; one of: began, ended, cancelled")
    }
  }

  func run() throws {
    try sendEvent(type: "motion", subtype: "motionShake", phase: phase.lowercased(), json: json)
  }
}

/// Sends through `SendEvent` and prints the outcome; exits with 1 when no responder handled it.
private func sendEvent(type: String, subtype: String, phase: String?, json: Bool) throws {
  let link = try DaemonLink.connect(json: json)
  let reply = try link.call("SendEvent", [.string(type), .string(subtype), .string(phase ?? "")])
  let handledBy = reply.first?.string ?? ""
  if json {
    var fields: [(String, JSON)] = [("type", .string(type)), ("subtype", .string(subtype))]
    if let phase { fields.append(("phase", .string(phase))) }
    fields.append(("handledBy", handledBy.isEmpty ? .null : .string(handledBy)))
    output(JSON.object(fields).text)
  } else {
    let what = [type, subtype, phase].compactMap { $0 }.joined(separator: " ")
    output(
      "\(what): " + (handledBy.isEmpty ? "dropped (\(DispatchRecord.unhandled))" : "handled by \(handledBy)"))
  }
  if handledBy.isEmpty { throw ExitCode(ExitCodes.failure.rawValue) }
}
