#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

int rsp_signalfd_for(const int *signals, int count) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
  if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int rsp_signalfd_read(int fd) {
  struct signalfd_siginfo info;
  ssize_t n = read(fd, &info, sizeof info);
  if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
  if (n < 0 && errno == EAGAIN) return 0;
  return -1;
}

double rsp_monotonic_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rsp_spawn(const char *file, char *const argv[], char *const envp[], pid_t *pid) {
  // fork and exec, not posix_spawn: the child asks for the parent-death signal before it runs
  // the program, which posix_spawn cannot do. Between fork and exec the child makes only
  // async-signal-safe calls. A pipe closed by the exec says whether the exec failed (and why).
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  pid_t parent = getpid();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t child = fork();
  if (child == 0) {
    close(report[0]);
    setpgid(0, 0);
    // SIGTERM when the thread that started it ends, the parent killed (SIGKILL) included.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);  // the parent died before the prctl
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int signo = 1; signo < NSIG; signo++) {
      if (signo != SIGKILL && signo != SIGSTOP) sigaction(signo, &dfl, NULL);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null > 0) {
      dup2(null, 0);
      close(null);
    }
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    execvpe(file, argv, envp);
    int failure = errno;
    ssize_t ignored = write(report[1], &failure, sizeof failure);
    (void)ignored;
    _exit(127);
  }
  int forkError = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(report[1]);
  if (child < 0) {
    close(report[0]);
    return forkError;
  }
  // Also from this side, so the group exists as soon as this returns (it fails harmlessly once
  // the child has exec'd).
  setpgid(child, child);
  int failure = 0;
  ssize_t n;
  do {
    n = read(report[0], &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == (ssize_t)sizeof failure) {
    waitpid(child, NULL, 0);
    return failure;
  }
  *pid = child;
  return 0;
}

int rsp_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int rsp_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int rsp_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
