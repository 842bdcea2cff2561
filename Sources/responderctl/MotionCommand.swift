import ArgumentParser
import EventLoop
import Logging
import Motion
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls
import TouchScenes

/// `responderctl motion`: live samples from the daemon (watch, record) and the offline shake analysis.
struct MotionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "motion",
    abstract:
      "Watch or record the running responderd's accelerometer samples; analyze a trace with the shake detector.",
    subcommands: [MotionAnalyzeCommand.self, MotionRecordCommand.self, MotionWatchCommand.self])
}

/// `responderctl motion analyze FILE.csv [--config F] [--plot OUT.svg]`.
struct MotionAnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Run the shake detector on a recorded trace; print one JSON object per event.",
    discussion: """
      FILE holds lines t,x,y,z (seconds, m/s² in screen coordinates, gravity included); a header \
      line and lines starting with # are allowed. Each motion event is printed as
      {"t": 2.4, "type": "motion", "phase": "began", "subtype": "motionShake"}
      with phases began, ended and cancelled. At the end of the file time runs on until every \
      pending decision is made.
      """)

  @Argument(help: "The trace (CSV: t,x,y,z).")
  var file: String

  @Option(help: "A responderd config file whose [motion.shake] settings to use.")
  var config: String?

  @Option(help: "light, medium or hard: the [motion.shake] sensitivity to use (instead of the config's).")
  var sensitivity: String?

  @Option(help: "Also draw the signal, the thresholds and the shakes into this SVG file.")
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
