#include "CLibraryLoader.h"

#include <dlfcn.h>

int rsp_library_load(rsp_library *library) {
  if (library->handle) return 1;
  library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
  if (!library->handle) library->error = dlerror();
  return library->handle != NULL;
}

void *rsp_library_resolve(rsp_library *library, const char *name) {
  if (!rsp_library_load(library)) return NULL;
  void *symbol = dlsym(library->handle, name);
  if (!symbol) library->error = dlerror();
  return symbol;
}
