#include <umockdev.h>
