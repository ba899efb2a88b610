/* The version the library was built as, for a program to compare with the
 * STRIDEMAP_VERSION it was compiled against. */
#include "stridemap/version.h"

const char *sm_version(void) { return STRIDEMAP_VERSION; }
