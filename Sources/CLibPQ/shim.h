#ifndef EASEL_LIBPQ_SHIM_H
#define EASEL_LIBPQ_SHIM_H

#include <libpq-fe.h>

// What Swift cannot import from libpq-fe.h: the diagnostic field codes are
// character macros.

/// The SQLSTATE of a failed result ("23505" for a unique violation), or NULL.
static inline const char *easel_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/// The primary message of a failed result, without libpq's "ERROR:" prefix.
static inline const char *easel_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

#endif
