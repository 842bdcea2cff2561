// TouchFrame: the cost of one touch frame (10 fingers) through a window with a 1000-view tree and
// 30 gesture recognizers, against baselines measured in the same run, interleaved:
//   - hit-test only: the 10 points of the frame hit-tested on the same tree (no delivery at all);
//   - no recognizers: the same frames through TouchInput and the window, with no recognizer;
//   - 30 recognizers: the same frames with 10 pans, 10 taps and 10 long presses on the path.
// Run: swift build -c release --product TouchFrame && .build/release/TouchFrame [sequences]
import ResponderCore
import TouchDispatch

#if canImport(Glibc)
  import Glibc
#endif

func monotonicNow() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The tree: a 1000 × 1000 window, 10 panels (columns), 9 rows in each, 10 cells in each row:
/// 10 + 90 + 900 = 1000 views under the window.
final class Scene {
  let scheduler = VirtualScheduler()
  let window: Window
  let input: TouchInput
  private(set) var viewCount = 0
  private(set) var recognizerCount = 0
  var actions = 0

  init(recognizers: Bool) {
    let app = Application(scheduler: scheduler)
    window = Window(frame: Rect(x: 0, y: 0, width: 1000, height: 1000), application: app)
    input = TouchInput(window: window)
    for p in 0..<10 {
      let panel = View(frame: Rect(x: Double(p) * 100, y: 0, width: 100, height: 1000))
      panel.isMultipleTouchEnabled = true
      window.addSubview(panel)
      viewCount += 1
      if recognizers { add(PanGestureRecognizer(), to: panel) }
      for r in 0..<9 {
        let row = View(frame: Rect(x: 0, y: Double(r) * 1000 / 9, width: 100, height: 1000 / 9))
        panel.addSubview(row)
        viewCount += 1
        if recognizers && r == 4 { add(TapGestureRecognizer(), to: row) }
        for c in 0..<10 {
          let cell = View(frame: Rect(x: Double(c) * 10, y: 0, width: 10, height: 1000 / 9))
          row.addSubview(cell)
          viewCount += 1
          if recognizers && r == 4 && c == 5 { add(LongPressGestureRecognizer(), to: cell) }
        }
      }
    }
  }

  private func add(_ recognizer: GestureRecognizer, to view: View) {
    recognizer.addHandler { [unowned self] _ in self.actions += 1 }
    view.addGestureRecognizer(recognizer)
    recognizerCount += 1
  }
}

/// Finger `k` circles (radius 30) around the middle of cell 5 of row 4 of panel `k`.
func points(frame: Int) -> [Point] {
  (0..<10).map { k in
    let angle = Double(frame) * 0.05 + Double(k)
    let radius = frame == 0 ? 0 : 30.0
    return Point(x: Double(k) * 100 + 55 + radius * cos(angle), y: 500 + radius * sin(angle))
  }
}

let movesPerSequence = 60
let framesPerSequence = movesPerSequence + 2
let frameInterval = 1.0 / 120

/// One sequence: 10 fingers down, 60 moves, all up; the time of each frame appended to `times`.
func runSequence(
  _ scene: Scene, start: Double, times: inout [Double], moves: inout [Double], downs: inout [Double]
) {
  for frame in 0..<framesPerSequence {
    let t = start + Double(frame) * frameInterval
    let contacts: [ContactSample] =
      frame == framesPerSequence - 1
      ? [] : points(frame: frame).enumerated().map { ContactSample(slot: $0.offset, location: $0.element) }
    let begin = monotonicNow()
    scene.scheduler.advance(to: t)
    scene.input.process(contacts, at: t)
    let elapsed = monotonicNow() - begin
    times.append(elapsed)
    if frame > 0 && frame < framesPerSequence - 1 { moves.append(elapsed) }
    if frame == 0 { downs.append(elapsed) }
  }
}

/// The baseline: the frame's 10 points hit-tested, nothing delivered.
func hitTestSequence(
  _ scene: Scene, times: inout [Double], moves: inout [Double], downs: inout [Double], sink: inout Int
) {
  for frame in 0..<framesPerSequence {
    let framePoints = points(frame: frame)
    let begin = monotonicNow()
    for point in framePoints where scene.window.hitTest(point, with: nil) != nil { sink += 1 }
    let elapsed = monotonicNow() - begin
    times.append(elapsed)
    if frame > 0 && frame < framesPerSequence - 1 { moves.append(elapsed) }
    if frame == 0 { downs.append(elapsed) }
  }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
  sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func microseconds(_ seconds: Double) -> String {
  let value = (seconds * 1e7).rounded() / 10
  return String(value) + " µs"
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

let sequences = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
let full = Scene(recognizers: true)
let bare = Scene(recognizers: false)
var sink = 0
var fullTimes: [Double] = []
var fullMoves: [Double] = []
var bareTimes: [Double] = []
var bareMoves: [Double] = []
var hitTimes: [Double] = []
var hitMoves: [Double] = []
var fullDowns: [Double] = []
var bareDowns: [Double] = []
var hitDowns: [Double] = []
var scratch: [Double] = []
var scratchMoves: [Double] = []
var scratchDowns: [Double] = []

// Warm-up, then interleaved measurement (each sequence of each variant in turn).
for round in 0..<10 {
  let start = Double(round)
  runSequence(full, start: start, times: &scratch, moves: &scratchMoves, downs: &scratchDowns)
  runSequence(bare, start: start, times: &scratch, moves: &scratchMoves, downs: &scratchDowns)
  hitTestSequence(full, times: &scratch, moves: &scratchMoves, downs: &scratchDowns, sink: &sink)
}
let wallStart = monotonicNow()
for round in 0..<sequences {
  let start = Double(round + 10)
  runSequence(full, start: start, times: &fullTimes, moves: &fullMoves, downs: &fullDowns)
  runSequence(bare, start: start, times: &bareTimes, moves: &bareMoves, downs: &bareDowns)
  hitTestSequence(full, times: &hitTimes, moves: &hitMoves, downs: &hitDowns, sink: &sink)
}
let wall = monotonicNow() - wallStart

print(
  "TouchFrame: 10 touches, \(full.viewCount) views (window → 10 panels → 90 rows → 900 cells), "
    + "\(full.recognizerCount) recognizers (10 pans, 10 taps, 10 long presses)")
print(
  "\(sequences) sequences of \(framesPerSequence) frames (10 fingers down, \(movesPerSequence) moves, all up), "
    + "variants interleaved; \(full.actions) recognizer actions; wall \((wall * 100).rounded() / 100) s")
print("")
print(pad("variant", 34) + pad("median", 12) + pad("p99", 12) + pad("mean", 12) + "frames/s sustained")
let results: [(String, [Double], [Double], [Double])] = [
  ("hit-test only (baseline)", hitTimes, hitMoves, hitDowns),
  ("window, no recognizers", bareTimes, bareMoves, bareDowns),
  ("window, 30 recognizers", fullTimes, fullMoves, fullDowns),
]
var medians: [Double] = []
var p99s: [Double] = []
for (name, times, _, _) in results {
  let sorted = times.sorted()
  let mean = times.reduce(0, +) / Double(times.count)
  medians.append(percentile(sorted, 0.5))
  p99s.append(percentile(sorted, 0.99))
  print(
    pad(name, 34) + pad(microseconds(percentile(sorted, 0.5)), 12)
      + pad(microseconds(percentile(sorted, 0.99)), 12)
      + pad(microseconds(mean), 12) + String(Int(1 / mean)))
}
print("")
print("moving frames only (10 touches moved):")
for (name, _, moves, _) in results {
  let sorted = moves.sorted()
  print(
    pad("  " + name, 34) + pad(microseconds(percentile(sorted, 0.5)), 12)
      + microseconds(percentile(sorted, 0.99)))
}
print("touch-down frames only (10 touches hit-tested; recognizers engaged):")
for (name, _, _, downs) in results {
  let sorted = downs.sorted()
  print(
    pad("  " + name, 34) + pad(microseconds(percentile(sorted, 0.5)), 12)
      + microseconds(percentile(sorted, 0.99)))
}
print("")
func ratio(_ a: Double, _ b: Double) -> String { String((a / b * 10).rounded() / 10) + "×" }
print(
  "30 recognizers vs hit-test only: median \(ratio(medians[2], medians[0])), p99 \(ratio(p99s[2], p99s[0]))")
print(
  "30 recognizers vs no recognizers: median \(ratio(medians[2], medians[1])), p99 \(ratio(p99s[2], p99s[1]))")
if sink == 0 { print("(no hits)") }
