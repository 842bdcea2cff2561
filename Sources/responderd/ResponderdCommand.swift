import EventLoop
import Logging
import ResponderConfig
import ResponderdKit
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// `responderd`: the user-session service. The command line is `DaemonCommandLine` (`--help`).
@main
enum ResponderdCommand {
  static func main() {
    // Before anything is written: a reader of stdout or stderr that goes away (`responderd 2>&1 |
    // head -n 1`) costs lines, not the process (the service's own `run()` says so again).
    signal(SIGPIPE, SIG_IGN)
    let options: DaemonCommandLine
    do {
      switch try DaemonCommandLine.parse(Array(CommandLine.arguments.dropFirst())) {
      case .help:
        writeText(DaemonCommandLine.help, to: .standardOutput)
        exit(0)
      case .version:
        writeText(responderdVersion + "\n", to: .standardOutput)
        exit(0)
      case .completionScript(let script):
        writeText(script, to: .standardOutput)
        exit(0)
      case .run(let parsed):
        options = parsed
      }
    } catch {
      writeText(error.text, to: .standardError)
      exit(64)  // EX_USAGE
    }
    do {
      exit(try run(options))
    } catch {
      writeText("Error: \(error)\n", to: .standardError)
      exit(1)
    }
  }

  /// Runs the service (or checks a config); returns the exit code.
  static func run(_ options: DaemonCommandLine) throws -> Int32 {
    if let path = options.checkConfig {
      do {
        let loaded = try ResponderdConfig.load(path: path)
        // Rules a desktop shell takes are accepted (the service starts), with a warning each.
        let shells = loaded.shellProfilesToCheck(currentDesktop: environment("XDG_CURRENT_DESKTOP"))
        for warning in loaded.shellWarnings(for: shells) { writeText("\(warning)\n", to: .standardError) }
        writeText("\(path): OK (chain: \(loaded.chain.joined(separator: " → ")))\n", to: .standardOutput)
        return 0
      } catch {
        writeText("\(error)\n", to: .standardError)
        return 78  // EX_CONFIG, as when the service refuses the same file at start-up
      }
    }

    let loaded: ResponderdConfig
    do {
      if let path = options.config ?? ResponderdConfig.defaultPath() {
        loaded = try ResponderdConfig.load(path: path)
      } else {
        loaded = ResponderdConfig()
      }
    } catch {
      writeText("responderd: refusing to start: \(error)\n", to: .standardError)
      return 78  // EX_CONFIG
    }

    let levelName = options.logLevel ?? loaded.logging.level
    guard let level = Logger.Level(rawValue: levelName) else {
      writeText("responderd: unknown log level '\(levelName)'\n", to: .standardError)
      return 64
    }
    LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level) }
    let logger = Logger(label: "responderd")

    if geteuid() == 0 && options.allowRoot {
      logger.warning("running as root because of --allow-root: meant for test containers only")
    } else if geteuid() == 0 {
      do {
        try dropPrivileges(to: options.user)
        logger.warning(
          "started as root: now running as '\(options.user)' (uid \(getuid())); responderd is meant to run as the session user (systemctl --user)"
        )
      } catch {
        logger.critical("started as root and could not drop privileges: \(error)")
        return 77  // EX_NOPERM
      }
    }

    let loop = try EventLoop()
    let service = Service(config: loaded, loop: loop, logger: logger)
    StandardComponents.add(to: service)
    // The programs of [command] leave nothing behind when the daemon stops: what they start and
    // abandon (a `setsid` program, say) becomes the daemon's child, ended with the others.
    service.children.adoptOrphans()
    logger.info("responderd \(responderdVersion) starting (config: \(loaded.file))")
    try service.run()
    logger.info("responderd stopped")
    return 0
  }
}
