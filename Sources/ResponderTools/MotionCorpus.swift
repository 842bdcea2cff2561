import EventTime
import Motion
import ResponderCore
import TouchScenes

/// The labelled motion corpus (`Tests/Fixtures/Motion/real/corpus.tsv`): per trace, stretches of
/// activity (walking, stairs-up, ...) and the ground truth of its shakes (label `shake`).
public struct MotionCorpus: Sendable {
  /// One labelled stretch of a trace.
  public struct Stretch: Equatable, Sendable {
    public var file: String
    public var placement: String
    public var label: String
    public var start: Seconds
    public var end: Seconds

    public var isShake: Bool { label == "shake" }
  }

  public var stretches: [Stretch]

  /// Parses `file<TAB>placement<TAB>label<TAB>start<TAB>end` lines (`#` starts a comment).
  public init(tsv text: String, file: String = "corpus.tsv") throws {
    stretches = []
    var lineNumber = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      if line.isEmpty || line.hasPrefix("#") { continue }
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count == 5, let start = Double(fields[3]), let end = Double(fields[4]) else {
        throw ToolInputError(
          file: file, line: lineNumber, message: "expected file, placement, label, start, end")
      }
      stretches.append(
        Stretch(file: fields[0], placement: fields[1], label: fields[2], start: start, end: end))
    }
  }

  /// The traces, in order of first mention.
  public var files: [String] {
    var seen: Set<String> = []
    return stretches.map(\.file).filter { seen.insert($0).inserted }
  }

  /// The ground-truth shakes of a trace.
  public func shakes(in file: String) -> [Stretch] { stretches.filter { $0.file == file && $0.isShake } }

  /// The activity stretches of a trace (everything but shakes).
  public func activities(in file: String) -> [Stretch] {
    stretches.filter { $0.file == file && !$0.isShake }
  }
}

extension MotionTrace {
  /// The trace as a sensor sampling at `rate` Hz would have given it: linear interpolation
  /// between the recorded samples (no filtering: above half the rate, motion aliases as it
  /// does on a sensor without a low-pass filter).
  public static func resampled(_ samples: [MotionSample], rate: Double) -> [MotionSample] {
    guard let first = samples.first, let last = samples.last, rate > 0 else { return [] }
    var result: [MotionSample] = []
    result.reserveCapacity(Int((last.t - first.t) * rate) + 1)
    var index = 0
    var n = 0
    while true {
      let t = first.t + Double(n) / rate
      if t > last.t { break }
      while index + 1 < samples.count, samples[index + 1].t < t { index += 1 }
      let a = samples[index]
      let b = samples[min(index + 1, samples.count - 1)]
      let f = b.t > a.t ? min(1, max(0, (t - a.t) / (b.t - a.t))) : 0
      result.append(
        MotionSample(t: t, acceleration: a.acceleration + (b.acceleration - a.acceleration) * f))
      n += 1
    }
    return result
  }
}
