/// A `[[touch.gesture]]` swipe rule of responderd.toml: `fingers` swiping `direction` post `event`.
func swipeRule(_ name: String, fingers: Int, _ direction: String, _ event: String) -> String {
  """
  [[touch.gesture]]
  name = "\(name)"
  gesture = "swipe"
  fingers = \(fingers)
  direction = "\(direction)"
  event = "\(event)"
  """
}

/// A `[[touch.gesture]]` edge-swipe rule of responderd.toml: a swipe in from `edge` posts `event`.
func edgeSwipeRule(_ name: String, _ edge: String, _ event: String) -> String {
  """
  [[touch.gesture]]
  name = "\(name)"
  gesture = "edge-swipe"
  edge = "\(edge)"
  event = "\(event)"
  """
}
