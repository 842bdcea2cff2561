import ResponderCore
import TouchDispatch
import WaylandTouch

/// Draws a window's views as flat rectangles (turned and scaled as their transforms say) into a
/// buffer, in software.
struct Painter {
  let buffer: PixelBuffer

  func fill(_ color: UInt32) {
    buffer.pixels.update(repeating: color, count: buffer.width * buffer.height)
  }

  /// Fills the convex polygon `corners` (window points) with `color`, pixel centres inside it.
  func fill(_ corners: [Point], _ color: UInt32) {
    let points = corners.map { Point(x: $0.x * buffer.scale, y: $0.y * buffer.scale) }
    guard let top = points.map(\.y).min(), let bottom = points.map(\.y).max() else { return }
    let firstRow = max(0, Int((top - 0.5).rounded(.up)))
    let lastRow = min(buffer.height - 1, Int((bottom - 0.5).rounded(.down)))
    guard firstRow <= lastRow else { return }
    for row in firstRow...lastRow {
      let y = Double(row) + 0.5
      var left = Double.infinity
      var right = -Double.infinity
      for index in points.indices {
        let a = points[index]
        let b = points[(index + 1) % points.count]
        guard (a.y <= y && b.y > y) || (b.y <= y && a.y > y) else { continue }
        let x = a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
        left = min(left, x)
        right = max(right, x)
      }
      guard left < right else { continue }
      let firstColumn = max(0, Int((left - 0.5).rounded(.up)))
      let lastColumn = min(buffer.width - 1, Int((right - 0.5).rounded(.down)))
      guard firstColumn <= lastColumn else { continue }
      (buffer.pixels + row * buffer.width + firstColumn).update(
        repeating: color, count: lastColumn - firstColumn + 1)
    }
  }
}
