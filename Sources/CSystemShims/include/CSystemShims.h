#ifndef RESPONDERD_CSYSTEMSHIMS_H
#define RESPONDERD_CSYSTEMSHIMS_H

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <time.h>

/// Blocks `signals` for the calling thread and returns a signalfd (CLOEXEC|NONBLOCK) for them, or -1.
int rsp_signalfd_for(const int *signals, int count);

/// Reads one signalfd_siginfo; returns the signal number, 0 when nothing is pending, -1 on error.
int rsp_signalfd_read(int fd);


/// Seconds since boot on CLOCK_MONOTONIC.
double rsp_monotonic_now(void);

/// Starts `file` (searched in PATH) with `argv` and `envp`, stdin from /dev/null, an empty signal
/// mask and default signal actions (the loop's blocked signals are not inherited), in a process
/// group of its own, with SIGTERM as its parent-death signal (sent when the calling thread ends,
/// however the process ends). Returns 0 and sets *pid, or an errno value (ENOENT when the
/// program does not exist).
int rsp_spawn(const char *file, char *const argv[], char *const envp[], pid_t *pid);
/// Makes this process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER): an orphan among
/// them becomes its child, not init's. 0, or -1 with errno.
int rsp_become_subreaper(void);

/// A pidfd for `pid` (readable when it exits), or -1.
int rsp_pidfd_open(pid_t pid);

/// Adds "close every descriptor from `from` up" to spawn file actions, so that descriptors another
/// thread opened without O_CLOEXEC (a pipe of Foundation's Process, say) do not leak into a child.
int rsp_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

static inline uint32_t rsp_epollin(void) { return EPOLLIN; }
static inline uint32_t rsp_epollout(void) { return EPOLLOUT; }
static inline uint32_t rsp_epollerr(void) { return EPOLLERR; }
static inline uint32_t rsp_epollhup(void) { return EPOLLHUP; }
static inline uint32_t rsp_epollpri(void) { return EPOLLPRI; }

#endif
