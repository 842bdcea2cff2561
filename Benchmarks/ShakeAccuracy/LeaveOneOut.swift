// Leave one source out (`--loso`): for each corpus (a source: one data set, its own devices,
// people and placements), the settings are chosen among `candidates` on every other corpus, then
// measured on it; beside them seismic's figures on the same recordings, from the same run.
import EventTime
import Motion
import ResponderCore
import ResponderTools

/// The kinds of motion the targets name, from a stretch's label (nil: everything else).
func targetClass(_ key: String) -> String? {
  let label = String(key.split(separator: " ").first ?? "")
  switch label {
  case "stairs-down", "stairs-quick": return "stairs-down"
  case "jogging": return "jogging"
  case "jumping": return "jumping"
  case "fall": return "falls"
  case "stumble": return "stumbles"
  case "walking", "walking-turning": return "walking"
  case "stairs", "stairs-up": return "stairs"
  default: return label.hasPrefix("vehicle") ? "vehicle" : nil
  }
}

/// Classes where a detector should do no worse than seismic, and those where it should give none.
let vigorousClasses = ["stairs-down", "jogging", "jumping", "falls", "stumbles"]
let zeroClasses = ["walking", "stairs", "vehicle"]

/// One detector's figures on one source.
struct SourceFigures {
  var falseShakes: [String: Int] = [:]
  var hours: [String: Double] = [:]
  var otherFalse = 0
  var detected = 0
  var total = 0
  var delays: [Double] = []

  init() {}

  init(_ score: Score) {
    for (key, hours) in score.hours {
      guard let kind = targetClass(key) else { continue }
      self.hours[kind, default: 0] += hours
    }
    for (key, count) in score.falseShakes {
      if let kind = targetClass(key) { falseShakes[kind, default: 0] += count } else { otherFalse += count }
    }
    detected = score.detected
    total = score.total
    delays = score.realMotionLatencies
  }

  static func + (a: SourceFigures, b: SourceFigures) -> SourceFigures {
    var sum = a
    sum.falseShakes.merge(b.falseShakes, uniquingKeysWith: +)
    sum.hours.merge(b.hours, uniquingKeysWith: +)
    sum.otherFalse += b.otherFalse
    sum.detected += b.detected
    sum.total += b.total
    sum.delays += b.delays
    return sum
  }

  var allFalse: Int { falseShakes.values.reduce(0, +) + otherFalse }
}

/// What the tuning minimizes on the sources it may look at: settings that find under 90 % of the
/// shakes or begin later than 0.6 s (median, from the hand's first move) are out; among the rest,
/// a missed shake weighs five, a false shake in everyday motion (walking, stairs, vehicles) ten,
/// one in vigorous motion two beyond seismic's count and one within it, any other one.
func tuningCost(_ ours: SourceFigures, seismic: SourceFigures) -> Double {
  // (A missed shake weighs five: a user shakes again, but notices.)
  var cost = 5 * Double(ours.total - ours.detected)
  if ours.total > 0, Double(ours.detected) < 0.9 * Double(ours.total) {
    cost += 1e6 * (0.9 - Double(ours.detected) / Double(ours.total))
  }
  let delay = percentile(ours.delays, 0.5)
  if delay.isFinite, delay > 0.6 { cost += 1e6 * (delay - 0.6) }
  for kind in zeroClasses { cost += 10 * Double(ours.falseShakes[kind] ?? 0) }
  for kind in vigorousClasses {
    let count = Double(ours.falseShakes[kind] ?? 0)
    cost += count + max(0, count - Double(seismic.falseShakes[kind] ?? 0))
  }
  return cost + Double(ours.otherFalse)
}

/// Runs the leave-one-source-out evaluation and prints its table.
@MainActor func leaveOneSourceOut(
  _ traces: [Trace], candidates: [(name: String, settings: ShakeSettings)]
) {
  let sources = Array(Set(traces.map { String($0.name.split(separator: "/")[0]) })).sorted()
  func figures(_ detect: ([MotionSample]) -> [(began: Seconds, end: Seconds)], _ source: String)
    -> SourceFigures
  {
    SourceFigures(score(detect, traces.filter { $0.name.hasPrefix(source + "/") }, verbose: false))
  }
  let seismic = Dictionary(
    uniqueKeysWithValues: sources.map { ($0, figures({ Seismic(threshold: 13).shakes($0) }, $0)) })
  // Every candidate on every source, once.
  var table: [[SourceFigures]] = []
  for candidate in candidates {
    let settings = candidate.settings
    table.append(
      sources.map { source in
        figures({ MotionAnalysis(samples: $0, settings: settings).shakes.map { ($0.began, $0.end) } }, source)
      })
  }
  print("## Leave one source out\n")
  print(
    "Candidates: " + candidates.enumerated().map { "\($0.offset) \($0.element.name)" }.joined(separator: "; ")
      + ".\n")
  print(
    "Each candidate on each source (false shakes: stairs-down, jogging, jumping, falls, stumbles | walking, stairs, vehicle | other; found):\n"
  )
  print("| candidate | " + sources.joined(separator: " | ") + " |")
  print("|---|" + String(repeating: "---|", count: sources.count))
  func cell(_ f: SourceFigures) -> String {
    vigorousClasses.map { "\(f.falseShakes[$0] ?? 0)" }.joined(separator: " ") + " \\| "
      + zeroClasses.map { "\(f.falseShakes[$0] ?? 0)" }.joined(separator: " ") + " \\| \(f.otherFalse)"
      + (f.total > 0 ? "; \(f.detected)/\(f.total)" : "")
  }
  print("| seismic 13 m/s² | " + sources.map { cell(seismic[$0]!) }.joined(separator: " | ") + " |")
  for (index, candidate) in candidates.enumerated() {
    print("| \(index) \(candidate.name) | " + table[index].map(cell).joined(separator: " | ") + " |")
  }

  /// The held-out figures of every fold, choosing among `allowed` candidates.
  func folds(_ allowed: [Int]) -> [(source: String, chosen: Int, ours: SourceFigures)] {
    sources.enumerated().map { sourceIndex, source in
      var best = allowed[0]
      var bestCost = Double.infinity
      for index in allowed {
        var ours = SourceFigures()
        var theirs = SourceFigures()
        for (other, name) in sources.enumerated() where other != sourceIndex {
          ours = ours + table[index][other]
          theirs = theirs + seismic[name]!
        }
        let cost = tuningCost(ours, seismic: theirs)
        if cost < bestCost {
          best = index
          bestCost = cost
        }
      }
      return (source, best, table[best][sourceIndex])
    }
  }

  let all = Array(candidates.indices)
  let result = folds(all)
  print(
    "\nHeld out: each source measured with the candidate chosen on the others (false shakes per hour, responderd / seismic; count in brackets):\n"
  )
  print(
    "| held-out source | chosen | hours | " + (vigorousClasses + zeroClasses).joined(separator: " | ")
      + " | other | shakes found | began median (s) |")
  print("|---|---|---:|" + String(repeating: "---:|", count: vigorousClasses.count + zeroClasses.count + 3))
  func rate(_ count: Int, _ hours: Double) -> String {
    hours > 0 ? "\(f(Double(count) / hours, 1)) (\(count))" : (count == 0 ? "–" : "(\(count))")
  }
  var ours = SourceFigures()
  var theirs = SourceFigures()
  func row(_ title: String, _ chosen: String, _ mine: SourceFigures, _ other: SourceFigures) {
    let hours = mine.hours.values.reduce(0, +)
    let cells = (vigorousClasses + zeroClasses).map { kind -> String in
      let h = mine.hours[kind] ?? 0
      if h == 0, mine.falseShakes[kind] == nil { return "–" }
      return rate(mine.falseShakes[kind] ?? 0, h) + " / " + rate(other.falseShakes[kind] ?? 0, h)
    }
    print(
      "| \(title) | \(chosen) | \(f(hours, 2)) | " + cells.joined(separator: " | ")
        + " | \(mine.otherFalse) / \(other.otherFalse) | "
        + (mine.total > 0 ? "\(mine.detected)/\(mine.total) / \(other.detected)/\(other.total)" : "–") + " | "
        + (mine.delays.isEmpty
          ? "–" : "\(f(percentile(mine.delays, 0.5), 2)) / \(f(percentile(other.delays, 0.5), 2))") + " |")
  }
  for fold in result {
    row(fold.source, "\(fold.chosen)", fold.ours, seismic[fold.source]!)
    ours = ours + fold.ours
    theirs = theirs + seismic[fold.source]!
  }
  row("**all, held out**", "", ours, theirs)

  // The spread: per class, the held-out ratio to seismic over the sources that have that class.
  print(
    "\nSpread over the folds (held-out false shakes per hour, responderd ÷ seismic, per source with that motion):\n"
  )
  for kind in vigorousClasses + zeroClasses {
    let ratios = result.compactMap { fold -> String? in
      guard let hours = fold.ours.hours[kind], hours > 0 else { return nil }
      let mine = fold.ours.falseShakes[kind] ?? 0
      let other = seismic[fold.source]!.falseShakes[kind] ?? 0
      return "\(fold.source) \(mine)/\(other)"
    }
    if !ratios.isEmpty { print("- \(kind): " + ratios.joined(separator: ", ")) }
  }

  // Whether each rule carries over: the held-out totals when the folds may not choose it.
  print(
    "\nEach candidate left out of the choice (held-out totals: vigorous | still | other false shakes; found; began median):\n"
  )
  func summary(_ folds: [(source: String, chosen: Int, ours: SourceFigures)]) -> String {
    let total = folds.reduce(SourceFigures()) { $0 + $1.ours }
    let vigorous = vigorousClasses.reduce(0) { $0 + (total.falseShakes[$1] ?? 0) }
    let still = zeroClasses.reduce(0) { $0 + (total.falseShakes[$1] ?? 0) }
    return
      "\(vigorous) | \(still) | \(total.otherFalse); \(total.detected)/\(total.total); "
      + "\(f(percentile(total.delays, 0.5), 2)) s (chosen: \(folds.map { "\($0.chosen)" }.joined(separator: ",")))"
  }
  print("- all candidates: " + summary(result))
  if candidates.count > 1 {
    for index in candidates.indices.dropFirst() {
      print("- without \(index) \(candidates[index].name): " + summary(folds(all.filter { $0 != index })))
    }
  }
  print("")
}

/// The settings the folds choose among: the default first, then the rules it has off or changed.
let tuningCandidates: [(name: String, settings: ShakeSettings)] = {
  var result: [(name: String, settings: ShakeSettings)] = [("default", ShakeSettings())]
  func add(_ name: String, _ change: (inout ShakeSettings) -> Void) {
    var settings = ShakeSettings()
    change(&settings)
    result.append((name, settings))
  }
  add("the last round's rules (no steady bounce, lopsided 1.6)") {
    $0.rules.steadyBounceShare = 2
    $0.rules.bounceLopsidedness = 1.6
  }
  add("no steady bounce") { $0.rules.steadyBounceShare = 2 }
  add("lopsided bounce 1.6") { $0.rules.bounceLopsidedness = 1.6 }
  add("steady bounce above -0.5 g") { $0.rules.steadyBounceFloor = -0.5 }
  add("steady bounce above -0.3 g") { $0.rules.steadyBounceFloor = -0.3 }
  add("steady bounce share 0.4") { $0.rules.steadyBounceShare = 0.4 }
  add("steady bounce without a drop") { $0.rules.steadyBounceDrop = .infinity }
  add("steady bounce, a drop within 0.5 s") { $0.rules.steadyBounceDrop = 0.5 }
  add("steady bounce share 0.5") { $0.rules.steadyBounceShare = 0.5 }
  add("swing duty 0.35") { $0.minimumSwingDuty = 0.35 }
  add("swing duty 0.4") { $0.minimumSwingDuty = 0.4 }
  return result
}()
