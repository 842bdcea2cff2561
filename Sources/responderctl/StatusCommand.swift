import DBus
import ResponderClient
import ResponderTools
import ResponderdKit
import TouchScenes

/// `responderctl status`: whether responderd runs, and its state.
struct StatusCommand {
  static var command: Command {
    Command(
      name: "status",
      abstract:
        "Show whether responderd is running, its first responder, chain, session and motion interest.",
      discussion: "Exits with 69 when responderd is not running on the session bus.",
      arguments: [.json]
    ) { try StatusCommand(json: $0.flag("json")).run() }
  }

  var json = false

  func run() throws {
    let link = try DaemonLink.connect(json: json)
    let properties = try link.properties()
    var pid: UInt32?
    link.bus.unixProcessID(of: link.owner) { pid = try? $0.get() }
    link.loop.run(until: { pid != nil }, timeout: 2)

    let chain = ChainEntry.list(properties["Chain"])
    let first = chain.first { $0.isFirstResponder }
    let version = properties["Version"]?.string ?? "?"
    let config = properties["ConfigFile"]?.string ?? "?"
    let deadline = properties["Deadline"]?.double ?? 0
    let motion = properties["MotionInterest"]?.bool ?? false
    // What the sensor does (an older daemon does not say: its interest stands for it).
    let accelerometer =
      properties["Accelerometer"]?.string ?? (motion ? "sampled" : "closed")
    let apps = chain.filter { $0.kind == "app" }
    let session = properties["Session"]?.dictionary ?? [:]
    let sessionState = session["state"]?.string ?? "unknown"
    let sessionID = session["id"]?.string
    let followsLogind = session["logind"]?.bool ?? false
    let devices = try? DevicesCommand.fetch(link)

    if json {
      var firstJSON = JSON.null
      if let first, let id = first.id {
        firstJSON = .object([("id", .number(Double(id))), ("name", .string(first.name))])
      }
      output(
        JSON.object([
          ("running", .bool(true)), ("version", .string(version)), ("busName", .string(link.owner)),
          ("pid", pid.map { .number(Double($0)) } ?? .null), ("config", .string(config)),
          ("deadline", .number(deadline)), ("firstResponder", firstJSON),
          ("applications", .number(Double(apps.count))),
          ("chain", .array(chain.map { .string($0.name) })), ("motionInterest", .bool(motion)),
          ("accelerometer", .string(accelerometer)),
          (
            "session",
            .object([
              ("state", .string(sessionState)), ("logind", .bool(followsLogind)),
              ("id", sessionID.map { .string($0) } ?? .null),
            ])
          ),
          (
            "devices",
            devices.map { report in
              .object([
                ("owned", .number(Double(report.count(.owned)))),
                ("shared", .number(Double(report.count(.shared)))),
                ("leftAlone", .number(Double(report.count(.leftAlone)))),
                ("suspended", .bool(report.suspended)), ("notes", .array(report.notes.map(JSON.string))),
              ])
            } ?? .null
          ),
        ]).text)
      return
    }
    output(
      "responderd \(version) is running on the session bus as \(link.owner)"
        + (pid.map { " (pid \($0))" } ?? ""))
    output("config: \(config)")
    output("deadline for applications: \(Int((deadline * 1000).rounded())) ms")
    output("first responder: \(first.map { "\($0.name) (id \($0.id ?? 0))" } ?? "none")")
    output("applications: \(apps.count) registered")
    output("chain: " + (chain.map(\.name) + ["dropped"]).joined(separator: " → "))
    let description = session["description"]?.string ?? sessionState
    if followsLogind {
      let how = session["foundBy"]?.string.map { ", \($0)" } ?? ""
      output("session: \(description) (logind session \(sessionID ?? "?")\(how))")
    } else {
      output("session: \(description) (no logind session followed: taken as active and unlocked)")
    }
    output("motion: " + (motion ? "wanted" : "not wanted") + "; the accelerometer is \(accelerometer)")
    if let devices {
      output(
        "input devices: \(devices.counts)"
          + (devices.suspended ? " (session inactive: all released)" : "")
          + " (responderctl devices says why)")
      for note in devices.notes { output(note) }
    }
  }
}
