// Shake accuracy over the real-motion corpus (Tests/Fixtures/Motion/real), in one run: responderd's
// detector at each sensitivity (the code `responderctl motion analyze` runs) and seismic's
// algorithm (square/seismic, re-implemented below from its description) at 11, 13 and 15 m/s².
// Prints markdown tables: false shakes per hour per activity and placement, detection of the
// ground-truth shakes with began/ended latencies, and the cost per sample (release build).
//   swift run -c release ShakeAccuracy [CORPUS_DIR] [--verbose: list the default's false shakes]
import EventTime
import Motion
import ResponderConfig
import ResponderCore
import ResponderTools
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// square/seismic's ShakeDetector: a window of the last 0.5 s of samples (used once it spans at
/// least 0.25 s and holds 4 samples); shaking while at least 3/4 of them have |a| (gravity
/// included) above the threshold. Began when that starts, ended when it stops.
struct Seismic {
  var threshold: Double
  func shakes(_ samples: [MotionSample]) -> [(began: Seconds, end: Seconds)] {
    var window: [(t: Seconds, accelerating: Bool)] = []
    var head = 0
    var accelerating = 0
    var result: [(Seconds, Seconds)] = []
    var began: Seconds?
    let limit = threshold * threshold
    for s in samples {
      let a = s.x * s.x + s.y * s.y + s.z * s.z > limit
      window.append((s.t, a))
      if a { accelerating += 1 }
      while head < window.count - 4, window[head].t < s.t - 0.5 {
        if window[head].accelerating { accelerating -= 1 }
        head += 1
      }
      let count = window.count - head
      let full = count >= 4 && s.t - window[head].t >= 0.25
      let shaking = full && accelerating >= count - count / 4
      if shaking, began == nil { began = s.t }
      if !shaking, let start = began {
        result.append((start, s.t))
        began = nil
      }
      if head > 4096 {
        window.removeFirst(head)
        head = 0
      }
    }
    if let start = began { result.append((start, samples.last?.t ?? start)) }
    return result
  }
}

struct Trace {
  var name: String
  var samples: [MotionSample]
  var activities: [MotionCorpus.Stretch]
  var shakes: [MotionCorpus.Stretch]
}

func printError(_ text: String) { print("# " + text) }

let corpusDirectory =
  CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("--") })
  ?? {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return path + "/Tests/Fixtures/Motion/real"
  }()

func load() throws -> [Trace] {
  let corpus = try MotionCorpus(tsv: try readTextFile(corpusDirectory + "/corpus.tsv"))
  return try corpus.files.map { file in
    let path = corpusDirectory + "/" + file
    return Trace(
      name: file, samples: try MotionTrace.parse(try readTextFile(path), file: path),
      activities: corpus.activities(in: file), shakes: corpus.shakes(in: file))
  }
}

/// What one detector made of the corpus.
struct Score {
  var verbose = false
  var falseShakes: [String: Int] = [:]
  var hours: [String: Double] = [:]
  var detected = 0
  var total = 0
  var beganLatencies: [Double] = []
  var endedLatencies: [Double] = []

  mutating func add(_ trace: Trace, shakes found: [(began: Seconds, end: Seconds)]) {
    let shakeTime = trace.shakes.reduce(0) { $0 + $1.end - $1.start }
    for (index, stretch) in trace.activities.enumerated() {
      var duration = stretch.end - stretch.start
      if index == 0 { duration -= shakeTime }
      hours[key(stretch), default: 0] += duration / 3600
    }
    var matched = Set<Int>()
    for shake in trace.shakes {
      total += 1
      if let index = found.indices.first(where: {
        !matched.contains($0) && found[$0].began >= shake.start && found[$0].began <= shake.end + 0.5
      }) {
        matched.insert(index)
        detected += 1
        beganLatencies.append(found[index].began - shake.start)
        endedLatencies.append(found[index].end - shake.end)
        if verbose {
          printError(
            "shake \(trace.name) \(f(shake.start))–\(f(shake.end)): began +\(f(found[index].began - shake.start)), "
              + "ended +\(f(found[index].end - shake.end))")
        }
      } else if verbose {
        printError("missed shake \(trace.name) \(f(shake.start))–\(f(shake.end))")
      }
    }
    for (index, shake) in found.enumerated() where !matched.contains(index) {
      let stretch =
        trace.activities.last(where: { shake.began >= $0.start && shake.began < $0.end })
        ?? trace.activities.first!
      falseShakes[key(stretch), default: 0] += 1
      if verbose {
        printError("false shake: \(trace.name) \(f(shake.began)) – \(f(shake.end)) (\(key(stretch)))")
      }
    }
  }

  func key(_ stretch: MotionCorpus.Stretch) -> String { "\(stretch.label) @ \(stretch.placement)" }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
}

func f(_ value: Double, _ decimals: Int = 2) -> String {
  guard value.isFinite else { return "–" }
  return decimals == 0 ? String(Int(value.rounded())) : formatNumber(value, decimals: decimals)
}

func seconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let traces = try load()
let sampleCount = traces.reduce(0) { $0 + $1.samples.count }
var detectors: [(String, ([MotionSample]) -> [(began: Seconds, end: Seconds)])] = []
for level in ShakeSettings.Sensitivity.allCases {
  let settings = ShakeSettings(sensitivity: level)
  detectors.append(
    (
      "responderd \(level.rawValue)\(level == .medium ? " (default)" : "")",
      { MotionAnalysis(samples: $0, settings: settings).shakes.map { ($0.began, $0.end) } }
    ))
}
for threshold in [11.0, 13, 15] {
  detectors.append(("seismic \(f(threshold, 0)) m/s²", { Seismic(threshold: threshold).shakes($0) }))
}

var scores: [(String, Score)] = []
for (name, detect) in detectors {
  var score = Score()
  score.verbose = CommandLine.arguments.contains("--verbose") && name.hasPrefix("responderd medium")
  for trace in traces { score.add(trace, shakes: detect(trace.samples)) }
  scores.append((name, score))
}

let totalMinutes = traces.reduce(0.0) { $0 + ($1.samples.last?.t ?? 0) - ($1.samples.first?.t ?? 0) } / 60
print(
  "Corpus: \(traces.count) traces, \(f(totalMinutes, 1)) minutes, \(sampleCount) samples, \(scores[0].1.total) shakes.\n"
)
print("False shakes per hour (count in brackets), per activity and placement:\n")
let keys = scores[0].1.hours.keys.sorted()
print("| activity @ placement | hours | " + scores.map(\.0).joined(separator: " | ") + " |")
print("|---|---:|" + String(repeating: "---:|", count: scores.count))
for key in keys {
  let hours = scores[0].1.hours[key] ?? 0
  let cells = scores.map { score -> String in
    let count = score.1.falseShakes[key] ?? 0
    return count == 0 ? "0" : "\(f(Double(count) / hours, 0)) (\(count))"
  }
  print("| \(key) | \(f(hours, 3)) | " + cells.joined(separator: " | ") + " |")
}
let allCells = scores.map { score -> String in
  let count = score.1.falseShakes.values.reduce(0, +)
  let hours = score.1.hours.values.reduce(0, +)
  return "\(f(Double(count) / hours, 1)) (\(count))"
}
print(
  "| **all** | \(f(scores[0].1.hours.values.reduce(0, +), 3)) | " + allCells.joined(separator: " | ") + " |")

print("\nShake traces (synthetic shakes on real walking and arm motion):\n")
print("| detector | detected | began latency median / max (s) | ended latency median / max (s) |")
print("|---|---:|---:|---:|")
for (name, score) in scores {
  print(
    "| \(name) | \(score.detected)/\(score.total) | \(f(percentile(score.beganLatencies, 0.5))) / "
      + "\(f(score.beganLatencies.max() ?? .nan)) | \(f(percentile(score.endedLatencies, 0.5))) / "
      + "\(f(score.endedLatencies.max() ?? .nan)) |")
}

// Cost per sample: the detector alone, on virtual time, against seismic's window in the same run.
let scheduler = VirtualScheduler()
var eventCount = 0
let detector = ShakeDetector(scheduler: scheduler) { _ in eventCount += 1 }
var best = Double.infinity
var seismicBest = Double.infinity
for _ in 0..<5 {
  var start = seconds()
  for trace in traces {
    detector.reset()
    for sample in trace.samples { detector.process(sample) }
  }
  best = min(best, seconds() - start)
  start = seconds()
  var seismicShakes = 0
  for trace in traces { seismicShakes += Seismic(threshold: 13).shakes(trace.samples).count }
  seismicBest = min(seismicBest, seconds() - start)
  if seismicShakes < 0 { print(seismicShakes) }
}
let perSample = best / Double(sampleCount) * 1e9
let seismicPerSample = seismicBest / Double(sampleCount) * 1e9
print(
  "\nCost: \(f(perSample, 0)) ns per sample for responderd's detector, \(f(seismicPerSample, 0)) ns for "
    + "seismic's window (ratio \(f(perSample / seismicPerSample, 2))); best of 5 over \(sampleCount) samples."
)
