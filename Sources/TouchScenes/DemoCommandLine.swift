import ResponderCore

/// The command line the touch demos share (touch-demo, and the GTK 4 and SDL 2 examples):
/// `[--scene FILE] [--log] [--fullscreen] [--size WxH]`, and flags of a demo's own.
public struct DemoCommandLine {
  /// What the command line asked for, or why it is wrong.
  public enum Failure: Error, Equatable {
    /// `--help`: print the usage and exit 0.
    case help
    /// A usage error (exit status 64).
    case usage(String)
  }

  public var sceneFile: String?
  public var log = false
  public var fullscreen = false
  /// The window's size in points (default: the scene's screen).
  public var size: Size?
  /// The demo's own flags given (of `extraFlags`).
  public var flags: Set<String> = []

  /// The usage text of `program`, with lines for its own flags.
  public static func usage(_ program: String, extra: [(flag: String, help: String)] = []) -> String {
    let flags = extra.map { " [\($0.flag)]" }.joined()
    let lines = extra.map { "    " + $0.flag.padding(13) + " " + $0.help + "\n" }.joined()
    return """
      usage: \(program) [--scene FILE] [--log] [--fullscreen] [--size WxH]\(flags)
        --scene FILE  views and recognizers to show (responderctl touch replay's scene format;
                      the screen's width and height are the window's size)
        --log         print every touch delivery, recognizer state change and action as a JSON line
        --fullscreen  ask the compositor for a fullscreen window
        --size WxH    the window's size in points (default: the scene's screen)

      """ + lines
  }

  /// Parses `arguments` (without the program's name); `extraFlags` are the demo's own.
  public init(_ arguments: [String], extraFlags: Set<String> = []) throws(Failure) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--scene":
        guard let file = arguments.popFirst() else { throw .usage("--scene needs a file") }
        sceneFile = file
      case "--log": log = true
      case "--fullscreen": fullscreen = true
      case "--size":
        let parts = (arguments.popFirst() ?? "").split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 >= 1 && $0 <= 16384 }) else {
          throw .usage("--size needs WIDTHxHEIGHT in points, for example 640x480")
        }
        size = Size(width: parts[0], height: parts[1])
      case "--help", "-h": throw .help
      case let flag where extraFlags.contains(flag): flags.insert(flag)
      default: throw .usage("unknown option '\(argument)'")
      }
    }
  }

  /// What a demo does with its command line: run with these options and scene, or stop with an
  /// exit status and a message (for standard output when the status is 0, else standard error).
  public enum Start {
    case run(DemoCommandLine, TouchScene)
    case stop(status: Int32, message: String)
  }

  /// `program`'s command line `arguments` parsed and its scene read (`read` gives a file's text):
  /// `--help` stops with 0 and `usage`, a usage error with 64, a scene that cannot be read with 65.
  public static func start(
    _ program: String, _ arguments: [String], usage: String, extraFlags: Set<String> = [],
    read: (String) throws -> String
  ) -> Start {
    let options: DemoCommandLine
    do {
      options = try DemoCommandLine(arguments, extraFlags: extraFlags)
    } catch {
      switch error {
      case .help: return .stop(status: 0, message: usage)
      case .usage(let message): return .stop(status: 64, message: "\(program): \(message)\n\(usage)")
      }
    }
    do {
      return .run(options, try options.scene(try options.sceneFile.map(read) ?? LiveScene.builtIn))
    } catch {
      return .stop(status: 65, message: "\(program): \(error)\n")
    }
  }

  /// The scene to show: `text` (the file's, or `LiveScene.builtIn` without `--scene`) parsed, at
  /// the size asked for.
  public func scene(_ text: String) throws -> TouchScene {
    var scene = try TouchScene.parse(text, file: sceneFile ?? "built-in scene")
    if let size {
      scene.screen.width = size.width
      scene.screen.height = size.height
    }
    return scene
  }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
