#ifndef EASEL_SQLITE_SHIM_H
#define EASEL_SQLITE_SHIM_H

#include <sqlite3.h>

// What Swift cannot import from sqlite3.h: the destructor macros, and the
// variadic configuration calls. Named for Easel: another package of the
// Swift server ecosystem already ships a module called CSQLite.

/// Binds a copy of the bytes (SQLITE_TRANSIENT). An empty blob stays an
/// empty blob, not NULL.
static inline int easel_sqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    static const char empty = 0;
    return sqlite3_bind_blob(statement, index, count == 0 ? &empty : bytes, count, SQLITE_TRANSIENT);
}

static inline int easel_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

/// Turns on extended result codes (SQLITE_CONSTRAINT_UNIQUE and friends).
static inline int easel_sqlite_extended_codes(sqlite3 *db) {
    return sqlite3_extended_result_codes(db, 1);
}

/// A unique or primary-key constraint failed (extended result codes).
static inline int easel_sqlite_is_constraint_unique(int code) {
    return code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY;
}

#endif
