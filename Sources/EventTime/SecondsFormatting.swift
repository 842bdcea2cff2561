/// Seconds with millisecond precision, without Foundation ("12.345").
public func formatSeconds(_ seconds: Double, decimals: Int = 3) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = (seconds * scale).rounded() / scale
  var text = String(rounded)
  if text.contains("e") { return text }
  if !text.contains(".") { text += "." }
  let fraction = text.split(separator: ".", omittingEmptySubsequences: false)[1]
  if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
  return text
}
