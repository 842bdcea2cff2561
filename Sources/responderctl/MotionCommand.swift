import ArgumentParser
import EventLoop
import Logging
import Motion
import ResponderConfig
import ResponderTools
import ResponderdKit
import SystemCalls

/// `responderctl motion`: the offline shake tools.
struct MotionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "motion",
    abstract: "Analyze accelerometer traces with the shake detector, or record one.",
    subcommands: [MotionAnalyzeCommand.self, MotionRecordCommand.self])
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
    let samples = try MotionTrace.parse(try readTextFile(file), file: file)
    let analysis = MotionAnalysis(samples: samples, settings: settings)
    for line in analysis.jsonLines { print(line) }
    if let plot {
      try writeTextFile(plot, MotionPlot(analysis: analysis, title: file).svg())
    }
  }
}

/// `responderctl motion record [--seconds N] [--config F] [--output FILE]`.
struct MotionRecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record the accelerometer to a trace that `motion analyze` reads.",
    discussion: """
      Opens the accelerometer the way responderd does (the [motion] settings of the config: rate, \
      capture, rotation, device) and writes t,x,y,z lines (CLOCK_MONOTONIC seconds, m/s² in screen \
      coordinates) until N seconds have passed or it is interrupted.
      """)

  @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
  var seconds: Double?

  @Option(help: "A responderd config file whose [motion] settings to use.")
  var config: String?

  @Option(name: .shortAndLong, help: "Write the trace to this file instead of standard output.")
  var output: String?

  func validate() throws {
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
  }

  func run() throws {
    let settings = try config.map { try ResponderdConfig.load(path: $0).motion } ?? MotionSettings()
    LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: .notice) }
    let loop = try EventLoop()
    var text = ""
    let recorder = MotionRecorder(loop: loop, settings: settings, logger: Logger(label: "responderctl")) {
      line in
      if output == nil { print(line, terminator: "") } else { text += line }
    }
    do {
      try recorder.run(seconds: seconds)
    } catch {
      writeText("responderctl: \(error)\n", to: .standardError)
      throw ExitCode(1)
    }
    if let output { try writeTextFile(output, text) }
    writeText("responderctl: \(recorder.sampleCount) samples recorded\n", to: .standardError)
    if recorder.sensorLost {
      writeText("responderctl: the sensor went away\n", to: .standardError)
      throw ExitCode(1)
    }
  }
}
