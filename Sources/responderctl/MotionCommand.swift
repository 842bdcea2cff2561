import EventLoop
import Logging
import Motion
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import TouchScenes

/// `responderctl motion`: live samples from the daemon (watch, record) and the offline shake analysis.
enum MotionCommand {
  static var command: Command {
    Command(
      name: "motion",
      abstract:
        "Watch or record the running responderd's accelerometer samples; analyze a trace with the shake detector.",
      subcommands: [MotionAnalyzeCommand.command, MotionRecordCommand.command, MotionWatchCommand.command])
  }
}

/// `responderctl motion analyze FILE.csv [--config F] [--plot OUT.svg]`.
struct MotionAnalyzeCommand {
  static var command: Command {
    Command(
      name: "analyze",
      abstract: "Run the shake detector on a recorded trace; print one JSON object per event.",
      discussion: """
        FILE holds lines t,x,y,z (seconds, m/s² in screen coordinates, gravity included); a header \
        line and lines starting with # are allowed. Each motion event is printed as
        {"t": 2.4, "type": "motion", "phase": "began", "subtype": "motionShake"}
        with phases began, ended and cancelled. At the end of the file time runs on until every \
        pending decision is made.
        """,
      arguments: [
        .positional("file", help: "The trace (CSV: t,x,y,z).", completion: .file),
        .option(
          "--config", help: "A responderd config file whose [motion.shake] settings to use.",
          completion: .file),
        .option(
          "--sensitivity",
          help: "light, medium or hard: the [motion.shake] sensitivity to use (instead of the config's).",
          completion: .choices(["light", "medium", "hard"])),
        .option(
          "--plot", help: "Also draw the signal, the thresholds and the shakes into this SVG file.",
          completion: .file),
      ]
    ) { arguments in
      try MotionAnalyzeCommand(
        file: arguments.string("file")!, config: arguments.string("config"),
        sensitivity: arguments.string("sensitivity"), plot: arguments.string("plot")
      ).run()
    }
  }

  var file: String
  var config: String?
  var sensitivity: String?
  var plot: String?

  func run() throws {
    var settings = try config.map { try ResponderdConfig.load(path: $0).motion.shake } ?? ShakeSettings()
    if let sensitivity {
      guard let level = ShakeSettings.Sensitivity(rawValue: sensitivity) else {
        throw ValidationError("--sensitivity must be light, medium or hard")
      }
      settings = ShakeSettings(sensitivity: level)
    }
    let samples = try MotionTrace.parse(try readInputFile(file), file: file)
    let analysis = MotionAnalysis(samples: samples, settings: settings)
    for line in analysis.jsonLines { print(line) }
    if let plot {
      try writeOutputFile(plot, MotionPlot(analysis: analysis, title: file).svg())
    }
  }
}
