import ResponderConfig
import ShellGestures
import Testing

/// `[touch] shell` and the warnings `--check-config` gives about rules a desktop shell takes:
/// each names the file, the line and the shell, on both sides of each threshold.
@Suite struct ShellWarningsTests {
  private func config(_ gestures: String, touch: String = "width = 1280\nheight = 800\n") throws
    -> ResponderdConfig
  {
    try ResponderdConfig.parse("[touch]\n\(touch)\n\(gestures)", file: "c.toml")
  }

  private func swipe(fingers: Int) -> String {
    "[[touch.gesture]]\nname = \"next\"\ngesture = \"swipe\"\nfingers = \(fingers)\ndirection = \"up\"\nevent = \"nextTrack\"\n"
  }

  private func edge(_ edge: String) -> String {
    "[[touch.gesture]]\nname = \"drawer\"\ngesture = \"edge-swipe\"\nedge = \"\(edge)\"\nevent = \"play\"\n"
  }

  @Test func readsTheShellSetting() throws {
    #expect(try config("").touch.shell == .auto)
    #expect(try config("", touch: "shell = \"kde\"\n").touch.shell == .profile(.kde))
    #expect(try config("", touch: "shell = \"gnome-3\"\n").touch.shell == .profile(.gnome3))
    #expect(try config("", touch: "shell = \"hyprland-touch\"\n").touch.shell == .profile(.hyprlandTouch))
    #expect(throws: ConfigError.self) { try config("", touch: "shell = \"gnom\"\n") }
    do {
      _ = try config("", touch: "shell = \"gnom\"\n")
    } catch {
      #expect(
        "\(error)"
          == "c.toml:2: 'touch.shell' must be one of 'auto', 'gnome', 'gnome-3', 'kde', 'phosh', 'phosh-0.34', 'hyprland-touch', 'none', not 'gnom' (did you mean 'gnome'?)"
      )
    }
  }

  /// GNOME 40+ takes every sequence that reaches three fingers: a three-finger rule is warned
  /// about at its `fingers` line, a two-finger one is not.
  @Test func threeFingersOnGNOME() throws {
    let three = try config(swipe(fingers: 3))
    #expect(
      three.shellWarnings(for: [.gnome]).map(\.description) == [
        "c.toml:8: warning: gesture 'next' (swipe, 3 fingers): GNOME Shell 40+ takes every touch sequence that reaches 3 fingers (its overview and workspace swipe), so this rule never acts there"
      ])
    #expect(try config(swipe(fingers: 4)).shellWarnings(for: [.gnome]).count == 1)
    #expect(try config(swipe(fingers: 2)).shellWarnings(for: [.gnome]).isEmpty)
  }

  @Test func fourFingersOnGNOME3() throws {
    #expect(try config(swipe(fingers: 3)).shellWarnings(for: [.gnome3]).isEmpty)
    #expect(
      try config(swipe(fingers: 4)).shellWarnings(for: [.gnome3]).map(\.message) == [
        "gesture 'next' (swipe, 4 fingers): GNOME Shell 3.36–3.38 takes every touch sequence that reaches 4 fingers (its overview and workspace swipe), so this rule never acts there"
      ])
  }

  @Test func threeFingersOnKDE() throws {
    #expect(
      try config(swipe(fingers: 3)).shellWarnings(for: [.kde]).map(\.description) == [
        "c.toml:8: warning: gesture 'next' (swipe, 3 fingers): KDE Plasma (KWin) takes a touch sequence whose third finger lands within 250 ms of the one before and within 50 mm of another (its touch-screen swipe), so this rule acts there only when the fingers land further apart"
      ])
    #expect(try config(swipe(fingers: 2)).shellWarnings(for: [.kde]).isEmpty)
  }

  /// An edge swipe whose start band lies inside the shell's never acts; one reaching further acts
  /// only beyond the shell's band; one at another edge is not warned about.
  @Test func edgeBands() throws {
    #expect(
      try config(edge("bottom")).shellWarnings(for: [.gnome]).map(\.description) == [
        "c.toml:8: warning: gesture 'drawer' (edge-swipe from the bottom edge): GNOME Shell 40+ takes a drag starting within 20 px of the bottom edge (its on-screen keyboard), so this rule acts there only when it starts 20 to 40 px from the edge (edge-width)"
      ])
    #expect(
      try config(edge("bottom"), touch: "width = 1280\nheight = 800\nedge-width = 20\n")
        .shellWarnings(for: [.gnome]).map(\.message) == [
          "gesture 'drawer' (edge-swipe from the bottom edge): GNOME Shell 40+ takes a drag starting within 20 px of the bottom edge (its on-screen keyboard), so this rule never acts there"
        ])
    #expect(
      try config(edge("top")).shellWarnings(for: [.gnome]).map(\.message) == [
        "gesture 'drawer' (edge-swipe from the top edge): GNOME Shell 40+ takes a drag starting within 20 px of the top edge (over a fullscreen window, to leave fullscreen), so this rule acts there only when it starts 20 to 40 px from the edge (edge-width)"
      ])
    #expect(try config(edge("left")).shellWarnings(for: [.gnome]).isEmpty)
    #expect(try config(edge("left")).shellWarnings(for: [.kde]).isEmpty)
  }

  /// Any top or bottom edge rule on Phosh; the sides on Hyprland with its touch swipe.
  @Test func phoshBarsAndHyprlandEdges() throws {
    #expect(
      try config(edge("top")).shellWarnings(for: [.phosh]).map(\.message) == [
        "gesture 'drawer' (edge-swipe from the top edge): Phosh 0.35+ takes every touch landing within 32 px of the top edge (its top bar), so this rule acts there only when it starts 32 to 40 px from the edge (edge-width)"
      ])
    #expect(try config(edge("bottom")).shellWarnings(for: [.phosh]).count == 1)
    #expect(try config(edge("left")).shellWarnings(for: [.phosh]).isEmpty)
    #expect(try config(edge("right")).shellWarnings(for: [.hyprlandTouch]).count == 1)
    #expect(try config(edge("top")).shellWarnings(for: [.hyprlandTouch]).isEmpty)
    #expect(try config(edge("bottom") + swipe(fingers: 3)).shellWarnings(for: [.none]).isEmpty)
  }

  /// The bands are in the shell's pixels: without the display's size they cannot be placed.
  @Test func unsetScreenSize() throws {
    #expect(
      try config(swipe(fingers: 2), touch: "device = \"\"\n").shellWarnings(for: [.gnome]).map(\.message) == [
        "[touch] width and height are not set: GNOME Shell 40+'s edge bands are in pixels and are measured in the panel's own units instead; set them to the display's size in pixels"
      ])
    #expect(try config(swipe(fingers: 2), touch: "device = \"\"\n").shellWarnings(for: [.kde]).isEmpty)
  }

  /// `--check-config` checks the configured shell, else the current desktop's, else every shell
  /// "auto" can find.
  @Test func shellsChecked() throws {
    let auto = try config(swipe(fingers: 3))
    #expect(auto.shellProfilesToCheck(currentDesktop: "GNOME") == [.gnome])
    #expect(auto.shellProfilesToCheck(currentDesktop: "sway") == [.gnome, .kde, .phosh034, .phosh])
    #expect(auto.shellProfilesToCheck(currentDesktop: nil) == [.gnome, .kde, .phosh034, .phosh])
    #expect(auto.shellProfilesToCheck(currentDesktop: "Phosh:GNOME") == [.phosh034, .phosh])
    #expect(auto.shellWarnings(for: auto.shellProfilesToCheck(currentDesktop: nil)).count == 2)
    let fixed = try config(swipe(fingers: 3), touch: "width = 1280\nheight = 800\nshell = \"none\"\n")
    #expect(fixed.shellProfilesToCheck(currentDesktop: "GNOME") == [ShellProfile.none])
  }
}
