// SQLite's C API from the system library (Debian: libsqlite3-dev).
#include <sqlite3.h>
