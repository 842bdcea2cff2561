import EventTime
import Foundation
import ResponderConfig
import ResponderCore
import ResponderdKit
import Testing
import TouchDispatch

/// `[touch]`: whole-screen gestures bound to events and commands.
@Suite struct TouchGesturesConfigTests {
  @Test func readsGestures() throws {
    let config = try ResponderdConfig.parse(
      """
      [touch]
      device = "Goodix*"
      rotation = 90
      edge-width = 30

      [[touch.gesture]]
      name = "next"
      gesture = "swipe"
      fingers = 3
      direction = "left"
      event = "nextTrack"

      [[touch.gesture]]
      name = "menu"
      gesture = "edge-swipe"
      edge = "left"
      command = ["rofi", "-show", "drun"]

      [[touch.gesture]]
      gesture = "pinch"
      pinch = "in"
      event = "pause"
      require-to-fail = ["next"]

      [[touch.gesture]]
      gesture = "long-press"
      fingers = 2
      duration = 1.5
      event = "togglePlayPause"
      """, file: "c.toml")
    let touch = config.touch
    #expect(touch.device == "Goodix*" && touch.rotation == .degrees90 && touch.edgeWidth == 30)
    #expect(touch.gestures.map(\.name) == ["next", "menu", "pinch-3", "long-press-4"])
    #expect(touch.gestures[0].action == .event(.remoteControlNextTrack))
    #expect(touch.gestures[0].fingers == 3 && touch.gestures[0].direction == .left)
    #expect(touch.gestures[1].edge == .left && touch.gestures[1].direction == .right)
    #expect(touch.gestures[1].action == .command(["rofi", "-show", "drun"]))
    #expect(touch.gestures[2].pinch == .in && touch.gestures[2].requireToFail == ["next"])
    #expect(touch.gestures[3].duration == 1.5 && touch.gestures[3].fingers == 2)
  }

  private func error(_ text: String) -> String? {
    do {
      _ = try ResponderdConfig.parse(text, file: "c.toml")
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func refusesBadGestures() {
    #expect(
      error("[touch]\nrotation = 45\n")
        == "c.toml:2: 'touch.rotation' must be 0, 90, 180, 270 or \"auto\", not 45")
    #expect(
      error("[[touch.gesture]]\ngesture = \"swipe\"\nevent = \"nextTrack\"\n")
        == "c.toml:1: a swipe needs 'direction' (right, left, up, down)")
    #expect(
      error("[[touch.gesture]]\ngesture = \"swype\"\n")
        == "c.toml:2: 'touch.gesture[0].gesture' must be one of 'tap', 'swipe', 'edge-swipe', 'pinch', 'long-press', not 'swype' (did you mean 'swipe'?)"
    )
    #expect(
      error("[[touch.gesture]]\ngesture = \"tap\"\nevent = \"nextTrak\"\n")
        == "c.toml:3: unknown remote-control event 'nextTrak' (did you mean 'nextTrack'?)")
    #expect(
      error("[[touch.gesture]]\ngesture = \"tap\"\n")
        == "c.toml:2: gesture 'tap-1' needs 'event' or 'command'")
    #expect(
      error("[[touch.gesture]]\ngesture = \"tap\"\ndirection = \"left\"\nevent = \"play\"\n")
        == "c.toml:3: unknown key 'direction' in [touch.gesture[0]]")
    #expect(
      error("[[touch.gesture]]\ngesture = \"tap\"\nevent = \"play\"\nrequire-to-fail = [\"double\"]\n")
        == "c.toml:4: 'touch.gesture[0].require-to-fail' names no gesture 'double'")
    #expect(
      error(
        "[[touch.gesture]]\nname = \"a\"\ngesture = \"tap\"\nevent = \"play\"\n[[touch.gesture]]\nname = \"a\"\ngesture = \"tap\"\nevent = \"play\"\n"
      )
        == "c.toml:6: gesture name 'a' is used twice")
    // A cycle of require-to-fail would leave both gestures waiting for each other for ever
    // (issue 16): refused, naming them.
    let tap = "gesture = \"tap\"\nevent = \"play\"\n"
    #expect(
      error(
        "[[touch.gesture]]\nname = \"a\"\n\(tap)require-to-fail = [\"b\"]\n"
          + "[[touch.gesture]]\nname = \"b\"\n\(tap)require-to-fail = [\"a\"]\n")
        == "c.toml:5: require-to-fail cycle: 'a' waits for 'b' to fail, 'b' for 'a'; none of them could ever be recognized"
    )
    #expect(
      error(
        "[[touch.gesture]]\nname = \"c\"\n\(tap)[[touch.gesture]]\nname = \"a\"\n\(tap)require-to-fail = [\"c\", \"b\"]\n"
          + "[[touch.gesture]]\nname = \"b\"\n\(tap)require-to-fail = [\"d\"]\n"
          + "[[touch.gesture]]\nname = \"d\"\n\(tap)require-to-fail = [\"a\"]\n")
        == "c.toml:9: require-to-fail cycle: 'a' waits for 'b' to fail, 'b' for 'd', 'd' for 'a'; none of them could ever be recognized"
    )
    #expect(
      error("[[touch.gesture]]\nname = \"a\"\n\(tap)require-to-fail = [\"a\"]\n")
        == "c.toml:5: require-to-fail cycle: 'a' waits for itself to fail; none of them could ever be recognized"
    )
  }

  @Test func theShippedConfigHasTheDefaults() throws {
    let path = #filePath.replacingOccurrences(
      of: "Tests/ResponderdTests/TouchGesturesTests.swift", with: "config/config.toml")
    #expect(try ResponderdConfig.load(path: path).touch == ResponderdConfig().touch)
  }
}

/// The gestures themselves, on virtual time, with scripted fingers.
@Suite struct ScreenGesturesTests {
  final class Rig {
    let scheduler = VirtualScheduler()
    let gestures: ScreenGestures
    let input: TouchInput
    var contacts: [Int: Point] = [:]

    init(_ toml: String) throws {
      let config = try ResponderdConfig.parse(toml, file: "c.toml").touch
      let box = LogBox()
      gestures = ScreenGestures(
        bindings: config.gestures, screen: Size(width: 400, height: 800), edgeWidth: config.edgeWidth,
        scheduler: scheduler
      ) { binding, _ in box.lines.append(binding.name) }
      input = TouchInput(window: gestures.window)
      self.box = box
    }
    let box: LogBox
    var names: [String] { box.lines }

    func frame(_ t: Double, _ changes: [Int: Point?]) {
      scheduler.advance(to: t)
      for (slot, point) in changes { contacts[slot] = point }
      input.process(contacts.keys.sorted().map { ContactSample(slot: $0, location: contacts[$0]!) }, at: t)
    }

    /// Fingers moving in straight lines (start → end) over `duration`, 60 frames a second, then lifted.
    func stroke(_ t: Double, _ fingers: [Int: (Point, Point)], duration: Double = 0.15) {
      frame(t, fingers.mapValues { $0.0 })
      let frames = Int(duration * 60)
      for k in 1...frames {
        let f = Double(k) / Double(frames)
        frame(
          t + duration * f,
          fingers.mapValues { Point(x: $0.0.x + ($0.1.x - $0.0.x) * f, y: $0.0.y + ($0.1.y - $0.0.y) * f) })
      }
      frame(t + duration + 0.02, fingers.mapValues { _ in nil })
    }
  }

  final class LogBox { var lines: [String] = [] }

  /// The rules as inline tables, one a line (the same array of tables as `[[touch.gesture]]`).
  private static let config = """
    [touch]
    edge-width = 40
    gesture = [
      { name = "next", gesture = "swipe", fingers = 3, direction = "left", event = "nextTrack" },
      { name = "back", gesture = "swipe", direction = "right", event = "previousTrack" },
      { name = "drawer", gesture = "edge-swipe", edge = "left", event = "play" },
      { name = "zoom-in", gesture = "pinch", pinch = "out", event = "beginSeekingForward" },
      { name = "zoom-out", gesture = "pinch", pinch = "in", event = "beginSeekingBackward" },
      { name = "hold", gesture = "long-press", fingers = 2, event = "togglePlayPause" },
      { name = "double", gesture = "tap", taps = 2, event = "stop" },
      { name = "single", gesture = "tap", event = "pause", require-to-fail = ["double"] },
    ]
    """

  private func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }

  @Test func threeFingerSwipe() throws {
    let rig = try Rig(Self.config)
    rig.stroke(
      1, [0: (p(300, 300), p(100, 300)), 1: (p(300, 400), p(100, 400)), 2: (p(300, 500), p(100, 500))])
    #expect(rig.names == ["next"])
    rig.stroke(2, [0: (p(300, 300), p(100, 300))])  // one finger left: nothing bound
    #expect(rig.names == ["next"])
  }

  /// An edge swipe from the left edge is the drawer, not the plain right swipe (which waits for
  /// it); the same swipe from the middle is the plain one.
  @Test func edgeSwipeTakesPrecedence() throws {
    let rig = try Rig(Self.config)
    rig.stroke(1, [0: (p(10, 400), p(250, 400))])
    #expect(rig.names == ["drawer"])
    rig.stroke(2, [0: (p(100, 400), p(300, 400))])
    #expect(rig.names == ["drawer", "back"])
  }

  @Test func pinchInAndOut() throws {
    let rig = try Rig(Self.config)
    rig.stroke(1, [0: (p(180, 400), p(100, 400)), 1: (p(220, 400), p(300, 400))], duration: 0.3)
    rig.stroke(2, [0: (p(100, 400), p(180, 400)), 1: (p(300, 400), p(220, 400))], duration: 0.3)
    #expect(rig.names == ["zoom-in", "zoom-out"])
  }

  @Test func twoFingerHold() throws {
    let rig = try Rig(Self.config)
    rig.frame(1, [0: p(100, 400), 1: p(200, 400)])
    rig.scheduler.advance(to: 1.49)
    #expect(rig.names.isEmpty)
    rig.scheduler.advance(to: 1.5)
    #expect(rig.names == ["hold"])
    rig.frame(1.7, [0: nil, 1: nil])
    #expect(rig.names == ["hold"])
  }

  /// require-to-fail between taps: a single tap acts once the double tap failed; a double tap
  /// only as the double.
  @Test func singleAndDoubleTap() throws {
    let rig = try Rig(Self.config)
    rig.frame(1, [0: p(200, 400)])
    rig.frame(1.08, [0: nil])
    #expect(rig.names.isEmpty)
    rig.scheduler.advance(to: 2)
    #expect(rig.names == ["single"])
    rig.frame(3, [0: p(200, 400)])
    rig.frame(3.08, [0: nil])
    rig.frame(3.2, [0: p(202, 400)])
    rig.frame(3.28, [0: nil])
    rig.scheduler.advance(to: 4)
    #expect(rig.names == ["single", "double"])
  }
}
