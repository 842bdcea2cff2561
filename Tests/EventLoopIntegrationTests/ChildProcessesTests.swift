import EventLoop
import Testing

/// Children started on the event loop (`ChildProcesses`): a program that is not there, and one
/// reaped through its pidfd. They start processes, so they are not in the unit target.
@Suite struct ChildProcessesTests {
  @Test func aProgramThatDoesNotExistCannotBeStarted() throws {
    let loop = try EventLoop()
    let children = ChildProcesses(loop: loop)
    #expect {
      try children.spawn(["responderd-no-such-program"])
    } throws: { error in
      "\(error)" == "spawn responderd-no-such-program: No such file or directory"
    }
    #expect(children.count == 0)
  }

  @Test func aChildIsReapedThroughItsPidFD() throws {
    let loop = try EventLoop()
    let children = ChildProcesses(loop: loop)
    var status: Int32?
    try children.spawn(["sh", "-c", "exit 3"]) { status = $0 }
    #expect(loop.run(until: { status != nil }, timeout: 10))
    #expect(status == 3)
    #expect(children.count == 0)
  }
}
