#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/syscall.h>
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

int rsp_timerfd_arm_absolute(int fd, double seconds) {
  struct itimerspec spec;
  memset(&spec, 0, sizeof spec);
  if (seconds > 0) {
    double whole = floor(seconds);
    spec.it_value.tv_sec = (time_t)whole;
    spec.it_value.tv_nsec = (long)((seconds - whole) * 1e9);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  }
  return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

double rsp_monotonic_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rsp_spawn(const char *file, char *const argv[], char *const envp[], pid_t *pid) {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  int rc = posix_spawnp(pid, file, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

int rsp_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int rsp_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
