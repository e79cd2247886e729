// The system Zstandard library (Debian: libzstd-dev): the column store's block compression.
#include <zstd.h>
