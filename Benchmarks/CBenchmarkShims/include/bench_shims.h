#ifndef BENCH_SHIMS_H
#define BENCH_SHIMS_H

/// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so that
/// no process a benchmark started (or one of those started) is left to PID 1; 0 on success.
int bench_become_subreaper(void);

#endif
