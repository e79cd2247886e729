// SwiftPM links an executable with `main` aliased to `<module>_main` (testable executables), so
// libFuzzer's own `main` is never used: this is that function, handing over to libFuzzer's driver
// with the Swift target's `LLVMFuzzerTestOneInput`.
#include <stddef.h>
#include <stdint.h>
#include "FuzzEntry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int catalog_yaml_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
