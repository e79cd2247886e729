// The system SQLite (Debian: libsqlite3-dev). On Apple platforms the SDK's SQLite3 module is used instead.
#include <sqlite3.h>
