// Shake accuracy over the real-motion corpora (Tests/Fixtures/Motion/real and
// Tests/Fixtures/Motion/pocket), in one run: responderd's detector at each sensitivity (the code
// `responderctl motion analyze` runs) and seismic's algorithm (square/seismic, re-implemented
// below from its source) at its three sensitivities, 11, 13 and 15 m/s². Prints markdown tables,
// separately for the recordings the detector was tuned on and for those held out of the tuning
// (`heldout/` in the corpus): a summary in the form of issue 26, false shakes per hour per
// activity and placement, detection of the ground-truth shakes with began/ended latencies, and
// the cost per sample against seismic's window in the same run, and their ratio (CPU time, release
// build).
//   swift run -c release ShakeAccuracy [CORPUS_DIR...] [--rate=HZ: resample every trace]
//     [--verbose: list the default's shakes and false shakes] [--cost: the cost alone, over the
//      corpora and at 50 Hz] [--rounds=N: cost rounds, 15] [--decisions: every decision of each
//      sensitivity on every trace, to the last bit, to compare two builds]
//     [--wiimote=DIR: the controller corpus, default $RESPONDERD_WIIMOTE_CORPUS, else
//      Tests/Fixtures/Motion/wiimote if present; used when no CORPUS_DIR is given]
//     [--umafall=DIR: jogging, hopping, stairs and falls, default $RESPONDERD_UMAFALL_CORPUS, else
//      Tests/Fixtures/Motion/umafall if its convert.py wrote it; likewise]
//     [--vehicle=DIR: vehicle rides, default $RESPONDERD_VEHICLE_CORPUS, else
//      Tests/Fixtures/Motion/vehicle if its convert.py wrote it; likewise]
//     [--daphnet=DIR: walking at the thigh and the belt, default $RESPONDERD_DAPHNET_CORPUS, else
//      Tests/Fixtures/Motion/daphnet if its convert.py wrote it; likewise]
//     [--loso: leave one source out, LeaveOneOut.swift]
import EventTime
import Motion
import ResponderConfig
import ResponderCore
import ResponderTools
import SystemCalls
import TouchScenes

#if canImport(Glibc)
  import Glibc
#endif

/// square/seismic's ShakeDetector: a window of the last 0.5 s of samples (older ones dropped while
/// it holds at least 4); shaking when it spans at least 0.25 s and at least n/2 + n/4 (integer
/// halves) of its n samples have |a| (gravity included) above the threshold. Seismic then hears
/// a shake and empties the window; here a shake is began when that happens and ended when the
/// window (refilled) is no longer shaking, so a long shake counts once, as an app sees it.
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
      while window.count - head >= 4, window[head].t < s.t - 0.5 {
        if window[head].accelerating { accelerating -= 1 }
        head += 1
      }
      let count = window.count - head
      let full = count >= 4 && s.t - window[head].t >= 0.25
      let shaking = full && accelerating >= count / 2 + count / 4
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
  /// Whether the trace was held out of the tuning (`heldout/` in its corpus).
  var heldOut: Bool { name.contains("heldout/") }
  var samples: [MotionSample]
  var activities: [MotionCorpus.Stretch]
  var shakes: [MotionCorpus.Stretch]
}

func printError(_ text: String) { print("# " + text) }

/// A corpus that may not be kept in the repository: `--OPTION=DIR`, else `$VARIABLE`, else
/// Tests/Fixtures/Motion/`folder` when its convert.py wrote `marker` there.
func optionalCorpus(option: String, variable: String, folder: String, marker: String, name: String) -> String?
{
  if let given = CommandLine.arguments.first(where: { $0.hasPrefix("--\(option)=") }) {
    return String(given.dropFirst(option.count + 3))
  }
  if let given = getenv(variable), given.pointee != 0 { return String(cString: given) }
  var path = #filePath
  for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
  let inRepository = path + "/Tests/Fixtures/Motion/" + folder
  if access(inRepository + "/" + marker, R_OK) == 0 { return inRepository }
  printError("no \(name) (give --\(option)=DIR or \(variable)): measured without it")
  return nil
}

/// The controller corpus (GestureWiimote, no licence: never kept).
let controllerDirectory = optionalCorpus(
  option: "wiimote", variable: "RESPONDERD_WIIMOTE_CORPUS", folder: "wiimote",
  marker: "wiimote-shakes-100hz.csv",
  name: "controller corpus")

/// The vigorous everyday motion corpus (UMAFall: jogging, hopping, stairs, falls; rebuilt by its
/// convert.py, not kept).
let vigorousDirectory = optionalCorpus(
  option: "umafall", variable: "RESPONDERD_UMAFALL_CORPUS", folder: "umafall", marker: "corpus.tsv",
  name: "UMAFall corpus")

/// The vehicle-ride corpus (cars: a phone-like device in a holder; rebuilt by its convert.py, not
/// kept).
let vehicleDirectory = optionalCorpus(
  option: "vehicle", variable: "RESPONDERD_VEHICLE_CORPUS", folder: "vehicle", marker: "corpus.tsv",
  name: "vehicle corpus")

/// Steps felt at the lower back and the thigh of people with Parkinson's disease walking
/// (Daphnet; rebuilt by its convert.py, not kept).
let daphnetDirectory = optionalCorpus(
  option: "daphnet", variable: "RESPONDERD_DAPHNET_CORPUS", folder: "daphnet", marker: "corpus.tsv",
  name: "Daphnet corpus")

let corpusDirectories: [String] = {
  let given = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }
  if !given.isEmpty { return Array(given) }
  var path = #filePath
  for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
  return [
    path + "/Tests/Fixtures/Motion/real", path + "/Tests/Fixtures/Motion/pocket",
    path + "/Tests/Fixtures/Motion/stairs",
  ]
    + (controllerDirectory.map { [$0] } ?? []) + (vigorousDirectory.map { [$0] } ?? [])
    + (vehicleDirectory.map { [$0] } ?? []) + (daphnetDirectory.map { [$0] } ?? [])
}()

func load() throws -> [Trace] {
  var traces: [Trace] = []
  for directory in corpusDirectories {
    let corpus = try MotionCorpus(tsv: try readTextFile(directory + "/corpus.tsv"))
    let corpusName = String(directory.split(separator: "/").last ?? "")
    for file in corpus.files {
      let path = directory + "/" + file
      traces.append(
        Trace(
          name: corpusName + "/" + file, samples: try MotionTrace.parse(try readTextFile(path), file: path),
          activities: corpus.activities(in: file), shakes: corpus.shakes(in: file)))
    }
  }
  return traces
}

/// What one detector made of the corpus.
struct Score {
  var verbose = false
  var falseShakes: [String: Int] = [:]
  var hours: [String: Double] = [:]
  var detected = 0
  var total = 0
  /// Of them, the hand-held controller's (its own corpus).
  var controllerDetected = 0
  var controllerTotal = 0
  /// Shakes shorter than a second (brief ones: two periods or fewer), and those found.
  var briefDetected = 0
  var briefTotal = 0
  /// Shakes began again during a ground-truth shake already found (a pause in a long shake).
  var repeated = 0
  /// Per label: stretches seen, and those with a false shake (for single movements: clips).
  var stretches: [String: Int] = [:]
  var stretchesWithShake: [String: Int] = [:]
  var beganLatencies: [Double] = []
  /// Of them, the real shakes' (not the synthetic ones added to real motion).
  var realBeganLatencies: [Double] = []
  /// The same, from the moment the hand started moving (`motionStart`) rather than the label's start.
  var realMotionLatencies: [Double] = []
  var endedLatencies: [Double] = []

  mutating func add(_ trace: Trace, shakes found: [(began: Seconds, end: Seconds)]) {
    let shakeTime = trace.shakes.reduce(0) { $0 + $1.end - $1.start }
    for (index, stretch) in trace.activities.enumerated() {
      var duration = stretch.end - stretch.start
      if index == 0 { duration -= shakeTime }
      hours[key(stretch), default: 0] += duration / 3600
    }
    var matched = Set<Int>()
    for stretch in trace.activities { stretches[key(stretch), default: 0] += 1 }
    var clipped = Set<Int>()
    let controller = trace.name.split(separator: "/").last?.hasPrefix("wiimote-") ?? false
    let synthetic = trace.name.split(separator: "/").last?.hasPrefix("shake-") ?? false
    for shake in trace.shakes {
      total += 1
      if controller { controllerTotal += 1 }
      let brief = shake.end - shake.start < 1
      if brief { briefTotal += 1 }
      if let index = found.indices.first(where: {
        !matched.contains($0) && found[$0].began >= shake.start && found[$0].began <= shake.end + 0.5
      }) {
        matched.insert(index)
        detected += 1
        if controller { controllerDetected += 1 }
        if brief { briefDetected += 1 }
        beganLatencies.append(found[index].began - shake.start)
        let moved = motionStart(shake, in: trace.samples)
        if !synthetic {
          realBeganLatencies.append(found[index].began - shake.start)
          realMotionLatencies.append(found[index].began - moved)
        }
        endedLatencies.append(found[index].end - shake.end)
        if verbose {
          printError(
            "shake \(trace.name) \(f(shake.start))–\(f(shake.end)): began +\(f(found[index].began - shake.start)) "
              + "(+\(f(found[index].began - moved)) from the first move), "
              + "ended +\(f(found[index].end - shake.end))")
        }
      } else if verbose {
        printError("missed shake \(trace.name) \(f(shake.start))–\(f(shake.end))")
      }
    }
    for (index, shake) in found.enumerated() where !matched.contains(index) {
      if trace.shakes.contains(where: { shake.began >= $0.start && shake.began <= $0.end + 0.5 }) {
        repeated += 1
        if verbose { printError("began again: \(trace.name) \(f(shake.began)) – \(f(shake.end))") }
        continue
      }
      let stretch =
        trace.activities.last(where: { shake.began >= $0.start && shake.began < $0.end })
        ?? trace.activities.first!
      falseShakes[key(stretch), default: 0] += 1
      if let number = trace.activities.firstIndex(of: stretch), clipped.insert(number).inserted {
        stretchesWithShake[key(stretch), default: 0] += 1
      }
      if verbose {
        printError("false shake: \(trace.name) \(f(shake.began)) – \(f(shake.end)) (\(key(stretch)))")
      }
    }
  }

  func key(_ stretch: MotionCorpus.Stretch) -> String { "\(stretch.label) @ \(stretch.placement)" }
}

/// When the hand started moving in a labelled shake: the first sample of the stretch whose
/// acceleration differs by at least 0.5 g from the device's at rest before it (the mean of the
/// quarter second before the stretch, else its first sample). The labels of some corpora begin with
/// the hand still at rest (the controller's clips, up to 0.9 s).
func motionStart(_ shake: MotionCorpus.Stretch, in samples: [MotionSample]) -> Seconds {
  // (The samples are in time order: the stretch and the quarter second before it are found by
  // bisection, not by reading the whole trace for every shake and detector.)
  func firstIndex(from t: Seconds) -> Int {
    var low = 0
    var high = samples.count
    while low < high {
      let middle = (low + high) / 2
      if samples[middle].t < t { low = middle + 1 } else { high = middle }
    }
    return low
  }
  let start = firstIndex(from: shake.start)
  let before = samples[firstIndex(from: shake.start - 0.25)..<start]
  let during = samples[start...].prefix { $0.t <= shake.end }
  guard let first = during.first else { return shake.start }
  let rest =
    before.isEmpty
    ? first.acceleration : before.reduce(Vector3.zero) { $0 + $1.acceleration } * (1 / Double(before.count))
  let level = 0.5 * standardGravity
  return during.first { ($0.acceleration - rest).length >= level }?.t ?? shake.start
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

/// CPU time of this thread (s): what the work itself took, whatever else the machine runs.
func seconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

var traces: [Trace]
do {
  traces = try load()
} catch {
  print("# cannot read the corpora \(corpusDirectories): \(error)")
  exit(2)
}
// --rate=HZ: every trace as a sensor at that rate would give it (linear resampling, as the tests do).
if let option = CommandLine.arguments.first(where: { $0.hasPrefix("--rate=") }) {
  guard let rate = Double(option.dropFirst("--rate=".count)), rate > 0 else {
    print("# --rate needs a positive number of Hz, not \(option)")
    exit(2)
  }
  for index in traces.indices {
    traces[index].samples = MotionTrace.resampled(traces[index].samples, rate: rate)
  }
}
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
  detectors.append(
    (
      "seismic \(f(threshold, 0)) m/s²\(threshold == 13 ? " (default)" : "")",
      { Seismic(threshold: threshold).shakes($0) }
    ))
}

func score(_ detect: ([MotionSample]) -> [(began: Seconds, end: Seconds)], _ traces: [Trace], verbose: Bool)
  -> Score
{
  var score = Score()
  score.verbose = verbose
  for trace in traces { score.add(trace, shakes: detect(trace.samples)) }
  return score
}

func count(_ score: Score, _ keys: [String]) -> (count: Int, hours: Double) {
  (keys.reduce(0) { $0 + (score.falseShakes[$1] ?? 0) }, keys.reduce(0.0) { $0 + (score.hours[$1] ?? 0) })
}

@MainActor func report(_ title: String, _ traces: [Trace]) {
  let verbose = CommandLine.arguments.contains("--verbose")
  let scores = detectors.map {
    ($0.0, score($0.1, traces, verbose: verbose && $0.0.hasPrefix("responderd medium")))
  }
  let minutes = traces.reduce(0.0) { $0 + ($1.samples.last?.t ?? 0) - ($1.samples.first?.t ?? 0) } / 60
  let samples = traces.reduce(0) { $0 + $1.samples.count }
  print("## \(title)\n")
  print(
    "\(traces.count) traces, \(f(minutes, 1)) minutes, \(samples) samples, \(scores[0].1.total) shakes.\n")
  let keys = scores[0].1.hours.keys.sorted()

  // The summary, in issue 26's form.
  let pocketWalking = keys.filter { $0.hasPrefix("walking @") && $0.hasSuffix("pocket") }
  let allSingleMovements = keys.filter {
    [
      "pocketing", "handling", "stand-to-sit", "sit-to-stand", "sit-to-lie", "lie-to-sit", "stand-to-lie",
      "lie-to-stand",
    ].contains(String($0.split(separator: " ").first ?? ""))
  }
  let controllerMovements = allSingleMovements.filter { $0.contains("@ wiimote-") }
  let singleMovements = allSingleMovements.filter { !controllerMovements.contains($0) }
  /// Vigorous everyday motion, one row per kind (UMAFall's labels, every placement).
  let vigorousKinds = [
    ("jogging", "jogging"), ("jumping", "jumping (hopping in place)"), ("stairs-down", "running down stairs"),
    ("fall", "falls"),
  ]
  let vigorous = vigorousKinds.map { kind in keys.filter { $0.hasPrefix(kind.0 + " @") } }
  /// Vehicle rides (labels `vehicle-car`, `vehicle-bus`, …, every placement).
  let vehicle = keys.filter { $0.hasPrefix("vehicle") }
  let otherActivity = keys.filter {
    !pocketWalking.contains($0) && !allSingleMovements.contains($0) && !vigorous.joined().contains($0)
      && !vehicle.contains($0)
  }
  print("| real motion | " + scores.map(\.0).joined(separator: " | ") + " |")
  print("|---|" + String(repeating: "---:|", count: scores.count))
  /// A row of false shakes, count (per hour), over the stretches of `keys`, when there are any.
  func perHourRow(_ title: String, _ keys: [String]) {
    guard !keys.isEmpty else { return }
    let hours = count(scores[0].1, keys).hours
    print(
      "| \(title), \(f(hours * 60, 1)) min: false shakes (per hour) | "
        + scores.map {
          let c = count($0.1, keys).count; return c == 0 ? "0" : "\(c) (\(f(Double(c) / hours, 0)))"
        }
        .joined(separator: " | ") + " |")
  }
  perHourRow("walking, phone in a trouser pocket (front, back)", pocketWalking)
  /// A row of clips with a shake, for the single movements of `keys`.
  func clipRow(_ title: String, _ keys: [String]) {
    guard !keys.isEmpty else { return }
    let clips = keys.reduce(0) { $0 + (scores[0].1.stretches[$1] ?? 0) }
    print(
      "| \(title), \(clips) clips: clips with a shake | "
        + scores.map { s in "\(keys.reduce(0) { $0 + (s.1.stretchesWithShake[$1] ?? 0) })" }
        .joined(separator: " | ") + " |")
  }
  clipRow(
    "single movements of a phone (put into / taken out of a pocket, strapped on, postural transitions)",
    singleMovements)
  clipRow(
    "a hand-held controller moved once (picked up, or moved left, right, up or down)", controllerMovements)
  for (kind, keys) in zip(vigorousKinds, vigorous) {
    perHourRow("\(kind.1), phone in a trouser pocket or sensor at the waist", keys)
  }
  let vehicleKinds = Set(vehicle.map { String($0.split(separator: " ")[0].dropFirst("vehicle-".count)) })
  let vehiclePlacements = Set(vehicle.map { String($0.split(separator: " ").last ?? "") })
  perHourRow(
    "vehicle rides (\(vehicleKinds.sorted().joined(separator: ", ")); "
      + "\(vehiclePlacements.sorted().joined(separator: ", ")))", vehicle)
  if !otherActivity.isEmpty {
    let hours = count(scores[0].1, otherActivity).hours
    print(
      "| other activity (walking at the waist or in the hand, stairs, sitting, lying, arm exercises, hand-held), \(f(hours * 60, 1)) min: false shakes | "
        + scores.map { "\(count($0.1, otherActivity).count)" }.joined(separator: " | ") + " |")
  }
  /// A row of shakes found, when the corpus has any: `total` and `found` of a detector's score.
  func foundRow(_ title: String, total: (Score) -> Int, found: (Score) -> Int) {
    guard total(scores[0].1) > 0 else { return }
    print(
      "| \(title), \(total(scores[0].1)): found | " + scores.map { "\(found($0.1))" }.joined(separator: " | ")
        + " |")
  }
  foundRow("the same controller deliberately shaken", total: \.controllerTotal, found: \.controllerDetected)
  foundRow(
    "deliberate shakes, real (hand-held boards) and synthetic on real motion",
    total: { $0.total - $0.controllerTotal }, found: { $0.detected - $0.controllerDetected })
  foundRow("of them brief (under 1 s)", total: \.briefTotal, found: \.briefDetected)

  print("\nFalse shakes per hour (count in brackets), per activity and placement:\n")
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
    "| **all** | \(f(scores[0].1.hours.values.reduce(0, +), 3)) | " + allCells.joined(separator: " | ") + " |"
  )

  guard scores[0].1.total > 0 else { return }
  print("\nShakes (real ones, and synthetic ones on real walking and arm motion):\n")
  print(
    "| detector | detected | began again within the shake | began latency median / max (s) | real shakes only: began median (s) | real shakes, from the hand's first move (0.5 g): began median (s) | ended latency median / max (s) |"
  )
  print("|---|---:|---:|---:|---:|---:|---:|")
  for (name, score) in scores {
    print(
      "| \(name) | \(score.detected)/\(score.total) | \(score.repeated) | \(f(percentile(score.beganLatencies, 0.5))) / "
        + "\(f(score.beganLatencies.max() ?? .nan)) | \(f(percentile(score.realBeganLatencies, 0.5))) | "
        + "\(f(percentile(score.realMotionLatencies, 0.5), 3)) | "
        + "\(f(percentile(score.endedLatencies, 0.5))) / "
        + "\(f(score.endedLatencies.max() ?? .nan)) |")
  }
  print("")
}

// Every began, ended and cancelled, every burst turned down and a hash of the gravity estimates,
// per sensitivity and trace, with every digit: two builds that print the same decide the same.
if CommandLine.arguments.contains("--decisions") {
  for level in ShakeSettings.Sensitivity.allCases {
    for trace in traces {
      let analysis = MotionAnalysis(samples: trace.samples, settings: ShakeSettings(sensitivity: level))
      var hash: UInt64 = 14_695_981_039_346_656_037
      for (t, m) in analysis.dynamicMagnitudes {
        hash = (hash ^ t.bitPattern ^ m.bitPattern) &* 1_099_511_628_211
      }
      print("\(level) \(trace.name) gravity \(hash)")
      for event in analysis.events { print("\(level) \(trace.name) \(event.phase) \(event.time)") }
      for note in analysis.rejections {
        print("\(level) \(trace.name) rejected \(note.reason) \(note.start) \(note.time)")
      }
    }
  }
  exit(0)
}
if CommandLine.arguments.contains("--loso") {
  leaveOneSourceOut(traces, candidates: tuningCandidates)
  exit(0)
}
if !CommandLine.arguments.contains("--cost") {
  report("Tuning recordings", traces.filter { !$0.heldOut })
  report("Held-out recordings (not looked at while tuning)", traces.filter(\.heldOut))
}

// Cost per sample: the detector alone, on virtual time, against seismic's window in the same run
// (CPU time of this thread), over the corpora as loaded and over every trace resampled to 50 Hz (a
// common rate for a tablet's accelerometer, where no sample is averaged with the next). Each
// recording is timed on its own, the two detectors one after the other, `--rounds=N` times over
// (15 by default); a recording's cost is its best time, and the cost is the sum over the
// recordings: a moment the machine was busy elsewhere then spoils one recording's time in one
// round, not a whole round. The bar is 3 times seismic's cost, in both.
let costBar = 3.0
let rounds =
  CommandLine.arguments.first { $0.hasPrefix("--rounds=") }.flatMap { Int($0.dropFirst("--rounds=".count)) }
  ?? 15
let scheduler = VirtualScheduler()
var eventCount = 0
let detector = ShakeDetector(scheduler: scheduler) { _ in eventCount += 1 }
var seismicShakes = 0

/// The detector's and seismic's CPU time per sample (ns) over `recordings`.
@MainActor func cost(_ recordings: [[MotionSample]]) -> (detector: Double, seismic: Double) {
  var traceBest = [Double](repeating: .infinity, count: recordings.count)
  var seismicTraceBest = [Double](repeating: .infinity, count: recordings.count)
  for _ in 0..<max(1, rounds) {
    for (index, samples) in recordings.enumerated() {
      var start = seconds()
      detector.reset()
      for sample in samples { detector.process(sample) }
      traceBest[index] = min(traceBest[index], seconds() - start)
      start = seconds()
      seismicShakes += Seismic(threshold: 13).shakes(samples).count
      seismicTraceBest[index] = min(seismicTraceBest[index], seconds() - start)
    }
  }
  let count = Double(recordings.reduce(0) { $0 + $1.count })
  return (traceBest.reduce(0, +) / count * 1e9, seismicTraceBest.reduce(0, +) / count * 1e9)
}

let rateOption = CommandLine.arguments.first { $0.hasPrefix("--rate=") }
let at50Hz = traces.map { MotionTrace.resampled($0.samples, rate: 50) }
for (title, recordings) in [
  ("over the corpora" + (rateOption.map { " (\($0))" } ?? ", each at its own rate"), traces.map(\.samples)),
  ("at 50 Hz (every trace resampled)", at50Hz),
] {
  let (perSample, seismicPerSample) = cost(recordings)
  let ratio = perSample / seismicPerSample
  print(
    "\nCost \(title): \(f(perSample, 0)) ns per sample for responderd's detector, \(f(seismicPerSample, 0)) ns "
      + "for seismic's window, ratio \(f(ratio, 2)) (\(ratio <= costBar ? "met" : "not met"): at most "
      + "\(f(costBar, 0))); CPU time, each recording's best of \(max(1, rounds)), over "
      + "\(recordings.reduce(0) { $0 + $1.count }) samples.")
}
if seismicShakes < 0 { print(seismicShakes) }
