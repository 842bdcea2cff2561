import DBus
import EventTime
import Motion
import ResponderCore

/// Draws a motion analysis as an SVG a person can read: the dynamic acceleration's magnitude over
/// time (in g), the detector's thresholds as dashed lines, and each shake shaded from began to
/// ended (green) or cancelled (orange).
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
    let yMax = max(1.5 * settings.threshold, ((peak * 1.1) * 2).rounded(.up) / 2, 1)
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    func x(_ t: Seconds) -> Double { left + (t - t0) / (t1 - t0) * plotWidth }
    func y(_ value: Double) -> Double { top + plotHeight * (1 - min(value, yMax) / yMax) }
    func f(_ v: Double) -> String { formatNumber(v, decimals: 1) }

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

    // Shakes, under everything else.
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
      out.append(
        "<text x=\"\(f(x(shake.began) + 3))\" y=\"\(f(top + 14))\" font-size=\"11\" fill=\"#555\">"
          + "began \(formatNumber(shake.began, decimals: 2))</text>")
      out.append(
        "<text x=\"\(f(x(shake.end) + 3))\" y=\"\(f(top + 28))\" font-size=\"11\" fill=\"#555\">"
          + "\(kind) \(formatNumber(shake.end, decimals: 2))</text>")
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
    for (name, value, color) in thresholds {
      out.append(
        "<line class=\"threshold\" x1=\"\(f(left))\" y1=\"\(f(y(value)))\" x2=\"\(f(left + plotWidth))\" "
          + "y2=\"\(f(y(value)))\" stroke=\"\(color)\" stroke-dasharray=\"6 4\"/>")
      out.append(
        "<text x=\"\(f(left + plotWidth + 6))\" y=\"\(f(y(value) + 4))\" fill=\"\(color)\">"
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
      "<rect x=\"\(f(legendX))\" y=\"\(f(height - bottom - 44))\" width=\"14\" height=\"10\" fill=\"#2ecc71\" fill-opacity=\"0.25\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(height - bottom - 35))\">shake (ended)</text>")
    out.append(
      "<rect x=\"\(f(legendX))\" y=\"\(f(height - bottom - 26))\" width=\"14\" height=\"10\" fill=\"#f39c12\" fill-opacity=\"0.25\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(height - bottom - 17))\">shake (cancelled)</text>")
    out.append(
      "<line x1=\"\(f(legendX))\" y1=\"\(f(height - bottom - 4))\" x2=\"\(f(legendX + 14))\" y2=\"\(f(height - bottom - 4))\" stroke=\"#2c3e50\"/>"
    )
    out.append("<text x=\"\(f(legendX + 18))\" y=\"\(f(height - bottom))\">|dynamic| (g)</text>")
    out.append("</g>")
    out.append("</svg>")
    return out.joined(separator: "\n") + "\n"
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
