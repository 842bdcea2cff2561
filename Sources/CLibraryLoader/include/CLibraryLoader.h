#ifndef RESPONDERD_CLIBRARYLOADER_H
#define RESPONDERD_CLIBRARYLOADER_H

// A C library opened with dlopen the first time one of its functions is called, rather than
// linked: the daemon maps libiio and libpulse only once motion or a volume key is wanted. A
// module forwards each function it uses with RSP_FORWARD: rsp_NAME calls the library's NAME,
// looked up once; when the library or the function is missing it returns `fail` with errno ENOSYS.

#include <errno.h>
#include <stddef.h>

/// One library: its soname, and once loaded, its handle; the reason it could not be loaded.
typedef struct rsp_library {
  const char *soname;
  void *handle;
  const char *error;
} rsp_library;

/// Loads the library if it is not yet; 1 when it is there, 0 when it cannot be loaded (`error`
/// says why).
int rsp_library_load(rsp_library *library);

/// The address of `name` in the library (loading it first), or NULL with `error` set.
void *rsp_library_resolve(rsp_library *library, const char *name);

#define RSP_FORWARD(library, type, fail, name, params, args)                        \
  type rsp_##name params {                                                          \
    static __typeof__(&name) real;                                                  \
    if (!real && !(real = (__typeof__(&name))rsp_library_resolve(&(library), #name))) { \
      errno = ENOSYS;                                                               \
      return fail;                                                                  \
    }                                                                               \
    return real args;                                                               \
  }

#define RSP_FORWARD_VOID(library, name, params, args)                               \
  void rsp_##name params {                                                          \
    static __typeof__(&name) real;                                                  \
    if (!real && !(real = (__typeof__(&name))rsp_library_resolve(&(library), #name))) return; \
    real args;                                                                      \
  }

#endif
