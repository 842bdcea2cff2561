import DBus
import EventTime
import Motion
import ResponderCore
import TouchScenes

/// Draws a motion analysis as an SVG a person can read: the dynamic acceleration's magnitude over
/// time (in g), the detector's thresholds as dashed lines, each shake shaded from began to ended
/// (green) or cancelled (orange), and along the bottom each stretch of vigorous motion the detector
/// turned down, coloured by why (impulses, axis, slow, pause, brief). Labels that would collide
/// go to the next row; those that fit nowhere are left to the marks' tooltips.
public struct MotionPlot {
  public var analysis: MotionAnalysis
  public var title: String
  public var width = 1200.0
  public var height = 440.0

  public init(analysis: MotionAnalysis, title: String) {
    self.analysis = analysis
    self.title = title
  }

  private let left = 70.0
  private let right = 150.0
  private let top = 48.0
  private let bottom = 52.0

  /// The SVG document.
  public func svg() -> String {
    let points = analysis.dynamicMagnitudes
    let settings = analysis.settings
    let t0 = points.first?.t ?? 0
    var t1 = max(points.last?.t ?? 1, analysis.events.last?.time ?? 0)
    if t1 <= t0 { t1 = t0 + 1 }
    let peak = (points.map(\.magnitude).max() ?? 0) / standardGravity
    // Jolts of 10 g would flatten everything else: the scale stops at 4 × threshold (peaks above
    // are drawn at the top edge).
    let yMax = min(
      max(1.5 * settings.threshold, ((peak * 1.1) * 2).rounded(.up) / 2, 1),
      (4 * settings.threshold * 2).rounded(.up) / 2)
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    func x(_ t: Seconds) -> Double { left + (t - t0) / (t1 - t0) * plotWidth }
    func y(_ value: Double) -> Double { top + plotHeight * (1 - min(value, yMax) / yMax) }
    func f(_ v: Double) -> String { formatNumber(v, decimals: 1) }

    // A white outline behind label text, so it stays readable over the signal.
    let halo = "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\""
    var out: [String] = []
    out.append(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
        + "viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"12\">")
    out.append("<title>\(title.xmlEscaped)</title>")
    out.append("<rect x=\"0\" y=\"0\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"white\"/>")
    let count = analysis.shakes.count
    out.append(
      "<text x=\"\(f(left))\" y=\"24\" font-size=\"15\" font-weight=\"bold\">"
        + "\(title.xmlEscaped) — \(count) shake\(count == 1 ? "" : "s")</text>")

    // Shakes, under everything else; labels in rows that do not collide.
    var topRows = LabelRows(count: 3)
    out.append("<g id=\"shakes\">")
    for shake in analysis.shakes {
      let kind = shake.cancelled ? "cancelled" : "ended"
      let color = shake.cancelled ? "#f39c12" : "#2ecc71"
      out.append(
        "<rect class=\"shake \(kind)\" x=\"\(f(x(shake.began)))\" y=\"\(f(top))\" "
          + "width=\"\(f(max(1, x(shake.end) - x(shake.began))))\" height=\"\(f(plotHeight))\" "
          + "fill=\"\(color)\" fill-opacity=\"0.25\"><title>shake from "
          + "\(formatNumber(shake.began, decimals: 3)) s to \(formatNumber(shake.end, decimals: 3)) s "
          + "(\(kind))</title></rect>")
      let label =
        "\(formatNumber(shake.began, decimals: 2))–\(formatNumber(shake.end, decimals: 2)) s"
        + (shake.cancelled ? " cancelled" : "")
      let at = min(x(shake.began), left + plotWidth - labelWidth(label))
      if let row = topRows.place(from: at + 2, width: labelWidth(label)) {
        out.append(
          "<text class=\"shake-label\" x=\"\(f(at + 2))\" y=\"\(f(top + 14 + 13 * Double(row)))\" "
            + "font-size=\"11\" fill=\"#222\" \(halo)>\(label)</text>")
      }
    }
    out.append("</g>")

    // Why motion was not a shake: a mark along the bottom per stretch turned down.
    var bottomRows = LabelRows(count: 2)
    let markY = top + plotHeight - 12
    out.append("<g id=\"rejections\">")
    for note in analysis.rejections {
      let color = Self.rejectionColors[note.reason] ?? "#999"
      let left = x(note.start)
      out.append(
        "<rect class=\"rejection \(note.reason.rawValue)\" x=\"\(f(left))\" y=\"\(f(markY))\" "
          + "width=\"\(f(max(2, x(note.time) - left)))\" height=\"10\" fill=\"\(color)\" fill-opacity=\"0.8\">"
          + "<title>not a shake (\(note.reason.rawValue): \(Self.rejectionMeanings[note.reason] ?? "")) from "
          + "\(formatNumber(note.start, decimals: 2)) s to \(formatNumber(note.time, decimals: 2)) s</title></rect>"
      )
      let label = note.reason.rawValue
      if left + labelWidth(label) <= self.left + plotWidth,
        let row = bottomRows.place(from: left, width: labelWidth(label))
      {
        out.append(
          "<text class=\"rejection-label\" x=\"\(f(left))\" y=\"\(f(markY - 4 - 12 * Double(row)))\" "
            + "font-size=\"10\" fill=\"#222\" \(halo)>\(label)</text>")
      }
    }
    out.append("</g>")

    // Grid and axes.
    out.append("<g id=\"axes\" stroke=\"#ddd\">")
    let xStep = niceStep(span: t1 - t0, maxTicks: 14)
    var tick = (t0 / xStep).rounded(.up) * xStep
    while tick <= t1 + 1e-9 {
      out.append(
        "<line x1=\"\(f(x(tick)))\" y1=\"\(f(top))\" x2=\"\(f(x(tick)))\" y2=\"\(f(top + plotHeight))\"/>")
      out.append(
        "<text x=\"\(f(x(tick)))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\" "
          + "stroke=\"none\" fill=\"#333\">\(formatNumber(tick, decimals: 3))</text>")
      tick += xStep
    }
    let yStep = niceStep(span: yMax, maxTicks: 8)
    var level = 0.0
    while level <= yMax + 1e-9 {
      out.append(
        "<line x1=\"\(f(left))\" y1=\"\(f(y(level)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(level)))\"/>")
      out.append(
        "<text x=\"\(f(left - 8))\" y=\"\(f(y(level) + 4))\" text-anchor=\"end\" stroke=\"none\" "
          + "fill=\"#333\">\(formatNumber(level, decimals: 2))</text>")
      level += yStep
    }
    out.append(
      "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" "
        + "fill=\"none\" stroke=\"#888\"/>")
    out.append("</g>")
    out.append(
      "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\">time (s)</text>")
    out.append(
      "<text transform=\"translate(18 \(f(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">"
        + "dynamic acceleration |a − gravity| (g)</text>")

    // Thresholds.
    let thresholds: [(String, Double, String)] = [
      ("threshold", settings.threshold, "#c0392b"),
      ("sustain", settings.sustainThreshold, "#8e44ad"),
      ("activity", settings.activityThreshold, "#7f8c8d"),
    ]
    out.append("<g id=\"thresholds\">")
    var labelY = -Double.infinity
    for (name, value, color) in thresholds {
      labelY = max(y(value) + 4, labelY + 12)  // (labels of close thresholds do not overlap)
      out.append(
        "<line class=\"threshold\" x1=\"\(f(left))\" y1=\"\(f(y(value)))\" x2=\"\(f(left + plotWidth))\" "
          + "y2=\"\(f(y(value)))\" stroke=\"\(color)\" stroke-dasharray=\"6 4\"/>")
      out.append(
        "<text x=\"\(f(left + plotWidth + 6))\" y=\"\(f(labelY))\" fill=\"\(color)\">"
          + "\(name) \(formatNumber(value, decimals: 2)) g</text>")
    }
    out.append("</g>")

    // The signal: per pixel column, its minimum and maximum, so that no peak is lost.
    var path: [String] = []
    var column = -1
    var low = 0.0
    var high = 0.0
    var lowT = 0.0
    var highT = 0.0
    func flush() {
      guard column >= 0 else { return }
      let ordered = lowT <= highT ? [(lowT, low), (highT, high)] : [(highT, high), (lowT, low)]
      for (t, value) in ordered { path.append("\(f(x(t))),\(f(y(value)))") }
    }
    for point in points {
      let value = point.magnitude / standardGravity
      let c = Int(x(point.t))
      if c != column {
        flush()
        column = c
        (low, high, lowT, highT) = (value, value, point.t, point.t)
      } else {
        if value < low { (low, lowT) = (value, point.t) }
        if value > high { (high, highT) = (value, point.t) }
      }
    }
    flush()
    out.append(
      "<polyline id=\"signal\" fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1\" points=\"\(path.joined(separator: " "))\"/>"
    )

    // Legend.
    let legendX = left + plotWidth + 6
    out.append("<g id=\"legend\" font-size=\"11\">")
    out.append(
      "<rect x=\"\(f(legendX))\" y=\"\(f(top + 2))\" width=\"14\" height=\"10\" fill=\"#2ecc71\" fill-opacity=\"0.25\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(top + 11))\">shake (ended)</text>")
    out.append(
      "<rect x=\"\(f(legendX))\" y=\"\(f(top + 20))\" width=\"14\" height=\"10\" fill=\"#f39c12\" fill-opacity=\"0.25\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(top + 29))\">shake (cancelled)</text>")
    out.append(
      "<line x1=\"\(f(legendX))\" y1=\"\(f(top + 43))\" x2=\"\(f(legendX + 14))\" y2=\"\(f(top + 43))\" stroke=\"#2c3e50\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(top + 47))\">|dynamic| (g)</text>")
    let reasons = ShakeRejection.allCases.filter { reason in
      analysis.rejections.contains { $0.reason == reason }
    }
    if !reasons.isEmpty {
      var legendY = top + 72
      out.append("<text x=\"\(f(legendX))\" y=\"\(f(legendY))\" font-weight=\"bold\">not a shake:</text>")
      for reason in reasons {
        legendY += 16
        out.append(
          "<rect x=\"\(f(legendX))\" y=\"\(f(legendY - 9))\" width=\"14\" height=\"10\" "
            + "fill=\"\(Self.rejectionColors[reason] ?? "#999")\"/>")
        out.append(
          "<text class=\"legend-rejection\" x=\"\(f(legendX + 18))\" y=\"\(f(legendY))\">\(reason.rawValue)"
            + "<title>\(Self.rejectionMeanings[reason] ?? "")</title></text>")
      }
    }
    out.append("</g>")
    out.append("</svg>")
    return out.joined(separator: "\n") + "\n"
  }

  static let rejectionColors: [ShakeRejection: String] = [
    .impulses: "#8e44ad", .axis: "#2980b9", .slow: "#16a085", .pause: "#7f8c8d", .brief: "#d35400",
    .weak: "#b0b0b0", .rhythm: "#c0392b", .long: "#27ae60",
  ]
  static let rejectionMeanings: [ShakeRejection: String] = [
    .impulses: "short jolts with little in between: steps, bumps",
    .axis: "did not go back and forth along one direction",
    .slow: "a swing slower than any shake: a sway, a stride, a turn",
    .pause: "the motion paused mid-way",
    .brief: "back and forth, but too short",
    .weak: "fewer than four swings in a row reached the threshold: a single stroke, a step",
    .rhythm: "swings of unlike lengths: jolts at odd moments, steps at the thigh",
    .long: "unbroken motion for longer than a shake may last: walking, not a shake beginning",
  ]

  /// About how wide a label of 11-px text is.
  private func labelWidth(_ text: String) -> Double { Double(text.count) * 6.2 + 6 }

  /// Rows of labels: each label goes to the first row where it does not overlap the last one.
  private struct LabelRows {
    var ends: [Double]
    init(count: Int) { ends = Array(repeating: -.infinity, count: count) }
    mutating func place(from x: Double, width: Double) -> Int? {
      guard let row = ends.firstIndex(where: { $0 <= x }) else { return nil }
      ends[row] = x + width
      return row
    }
  }

  /// A round step (1, 2 or 5 × 10ⁿ) giving at most `maxTicks` ticks over `span`.
  private func niceStep(span: Double, maxTicks: Int) -> Double {
    var step = 0.001
    while span / step > Double(maxTicks) {
      for factor in [2.0, 2.5, 2.0] {
        step *= factor
        if span / step <= Double(maxTicks) { return step }
      }
    }
    return step
  }
}
