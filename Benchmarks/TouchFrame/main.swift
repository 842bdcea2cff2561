// TouchFrame: the cost of one touch frame (10 fingers) through a window with a 1000-view tree and
// 30 gesture recognizers, against baselines measured in the same run, interleaved:
//   - hit-test only: the 10 points of the frame hit-tested on the same tree (no delivery at all);
//   - no recognizers: the same frames through TouchInput and the window, with no recognizer;
//   - 30 recognizers: the same frames with 10 pans, 10 taps and 10 long presses on the path.
// Run: swift build -c release --product TouchFrame && .build/release/TouchFrame [sequences] [moves]
// (a third argument `full` runs the 30-recognizer variant alone, for profiling with callgrind).
import EventTime
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

/// Moves per sequence (the second argument; 0 profiles touch-down and lift frames alone).
let movesPerSequence = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 60 : 60
let framesPerSequence = movesPerSequence + 2
let frameInterval = 1.0 / 120

/// Frame times of one variant: every frame, and the moving, touch-down and lift frames apart.
struct Samples {
  var all: [Double] = []
  var moves: [Double] = []
  var downs: [Double] = []
  var lifts: [Double] = []

  mutating func add(_ elapsed: Double, frame: Int) {
    all.append(elapsed)
    if frame == 0 {
      downs.append(elapsed)
    } else if frame == framesPerSequence - 1 {
      lifts.append(elapsed)
    } else {
      moves.append(elapsed)
    }
  }
}

/// One sequence: 10 fingers down, the moves, all up; the time of each frame added to `samples`.
func runSequence(_ scene: Scene, start: Double, samples: inout Samples) {
  for frame in 0..<framesPerSequence {
    let t = start + Double(frame) * frameInterval
    let contacts: [ContactSample] =
      frame == framesPerSequence - 1
      ? [] : points(frame: frame).enumerated().map { ContactSample(slot: $0.offset, location: $0.element) }
    let begin = monotonicNow()
    scene.scheduler.advance(to: t)
    if frame == 0 {
      touchDown(contacts, into: scene.input, at: t)
    } else {
      scene.input.process(contacts, at: t)
    }
    samples.add(monotonicNow() - begin, frame: frame)
  }
}

/// A touch-down frame, in a function of its own so that a profile can single those frames out
/// (`valgrind --tool=callgrind --toggle-collect='*touchDown*' …`).
@inline(never)
func touchDown(_ contacts: [ContactSample], into input: TouchInput, at time: Double) {
  input.process(contacts, at: time)
}

/// The baseline: the frame's 10 points hit-tested, nothing delivered.
func hitTestSequence(_ scene: Scene, samples: inout Samples, sink: inout Int) {
  for frame in 0..<framesPerSequence {
    let framePoints = points(frame: frame)
    let begin = monotonicNow()
    for point in framePoints where scene.window.hitTest(point, with: nil) != nil { sink += 1 }
    samples.add(monotonicNow() - begin, frame: frame)
  }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func microseconds(_ seconds: Double) -> String {
  let value = (seconds * 1e7).rounded() / 10
  return String(value) + " µs"
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

let sequences = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
let fullOnly = CommandLine.arguments.count > 3 && CommandLine.arguments[3] == "full"
let full = Scene(recognizers: true)
let bare = Scene(recognizers: false)
var sink = 0
var fullSamples = Samples()
var bareSamples = Samples()
var hitSamples = Samples()
var scratch = Samples()

// Warm-up, then interleaved measurement (each sequence of each variant in turn).
for round in 0..<10 {
  let start = Double(round)
  runSequence(full, start: start, samples: &scratch)
  if fullOnly { continue }
  runSequence(bare, start: start, samples: &scratch)
  hitTestSequence(full, samples: &scratch, sink: &sink)
}
let wallStart = monotonicNow()
for round in 0..<sequences {
  let start = Double(round + 10)
  runSequence(full, start: start, samples: &fullSamples)
  if fullOnly { continue }
  runSequence(bare, start: start, samples: &bareSamples)
  hitTestSequence(full, samples: &hitSamples, sink: &sink)
}
if fullOnly {
  print("full variant only: \(fullSamples.all.count) frames")
  exit(0)
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
let results: [(String, Samples)] = [
  ("hit-test only (baseline)", hitSamples),
  ("window, no recognizers", bareSamples),
  ("window, 30 recognizers", fullSamples),
]
var medians: [Double] = []
var p99s: [Double] = []
for (name, samples) in results {
  let sorted = samples.all.sorted()
  let mean = samples.all.reduce(0, +) / Double(samples.all.count)
  medians.append(percentile(sorted, 0.5))
  p99s.append(percentile(sorted, 0.99))
  print(
    pad(name, 34) + pad(microseconds(percentile(sorted, 0.5)), 12)
      + pad(microseconds(percentile(sorted, 0.99)), 12)
      + pad(microseconds(mean), 12) + String(Int(1 / mean)))
}
let kinds: [(String, KeyPath<Samples, [Double]>)] = [
  ("moving frames only (10 touches moved):", \.moves),
  ("touch-down frames only (10 touches hit-tested; recognizers engaged):", \.downs),
  ("lift frames only (10 touches ended; taps recognized, recognizers reset):", \.lifts),
]
for (title, kind) in kinds {
  print(title)
  for (name, samples) in results {
    let sorted = samples[keyPath: kind].sorted()
    print(
      pad("  " + name, 34) + pad(microseconds(percentile(sorted, 0.5)), 12)
        + microseconds(percentile(sorted, 0.99)))
  }
}
print("")
func ratio(_ a: Double, _ b: Double) -> String { String((a / b * 10).rounded() / 10) + "×" }
print(
  "30 recognizers vs hit-test only: median \(ratio(medians[2], medians[0])), p99 \(ratio(p99s[2], p99s[0]))")
print(
  "30 recognizers vs no recognizers: median \(ratio(medians[2], medians[1])), p99 \(ratio(p99s[2], p99s[1]))")
if sink == 0 { print("(no hits)") }

// Where the cost is: the median of each frame of the sequence, with 30 recognizers.
func medianOfFrame(_ index: Int, in all: [Double]) -> Double {
  var values: [Double] = []
  var position = index
  while position < all.count {
    values.append(all[position])
    position += framesPerSequence
  }
  return percentile(values.sorted(), 0.5)
}
if framesPerSequence > 3 {
  print(
    "30 recognizers, median by frame: touch-down \(microseconds(medianOfFrame(0, in: fullSamples.all))); first move (pans begin, "
      + "taps and long presses fail) \(microseconds(medianOfFrame(1, in: fullSamples.all))); a later move "
      + "\(microseconds(medianOfFrame(framesPerSequence / 2, in: fullSamples.all))); lift \(microseconds(medianOfFrame(framesPerSequence - 1, in: fullSamples.all)))"
  )
}
