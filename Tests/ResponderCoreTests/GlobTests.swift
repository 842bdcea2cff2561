import ResponderCore
import Testing

@Suite struct GlobTests {
  @Test(
    "wildcards",
    arguments: [
      ("*Headset Jack", "sof-hda-dsp Headset Jack", true), ("*Headset Jack", "Headset Jack", true),
      ("*Headset Jack", "Headset Jack 2", false), ("Logitech*", "Logitech K120", true),
      ("Logi?ech*", "Logitech K120", true), ("*K1?0*", "Logitech K120 Keyboard", true),
      ("ALSA", "ALSA", true), ("ALSA", "alsa", false), ("", "", true), ("*", "", true),
      ("a*b*c", "abxbc", true),
      ("a*b*c", "abxbd", false),
    ])
  func wildcards(pattern: String, text: String, expected: Bool) {
    #expect(Glob(pattern).matches(text) == expected)
  }

  @Test func questionMarkIsExactlyOneCharacter() {
    #expect(Glob("v?c").matches("vlc"))
    #expect(!Glob("v?c").matches("vllc"))
    #expect(!Glob("v?c").matches("vc"))
    #expect(!Glob("?").matches(""))
  }

  @Test func anAsteriskInTheTextIsAnOrdinaryCharacter() {
    #expect(Glob("*a").matches("*xa"))
    #expect(Glob("a*").matches("a*"))
    #expect(!Glob("a").matches("*"))
  }

  @Test func describesItselfAsThePattern() {
    #expect(Glob("mpv.instance*").description == "mpv.instance*")
    #expect(Glob("mpv.instance*").pattern == "mpv.instance*")
  }
}
