// The system zlib (Debian: zlib1g-dev; Apple platforms ship it in the SDK).
#include <zlib.h>
