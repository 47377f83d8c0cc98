/*
 * engine_csv_line(v1, v2, ...): one CSV line (CRLF-terminated) of its arguments, for SQLite exports
 * (src/capabilities/db/drivers/sqlite-worker.ts). The same dialect as the SQL encoder it replaces,
 * PostgreSQL COPY's: NULL empty; text quoted when empty or holding a quote, comma, CR or LF, quotes
 * doubled; blobs as \x and lower-case hex; numbers as SQLite renders them (what `||` gives, and what
 * `sqlite3 -csv` prints). Written in C because building that line in SQL cost more than stepping
 * the rows (docs/performance.md, Databases). Pure: deterministic and innocuous.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <string.h>

static int needs_quotes(const unsigned char *t, int n) {
  if (n == 0) return 1;
  for (int i = 0; i < n; i++) {
    unsigned char c = t[i];
    if (c == '"' || c == ',' || c == '\n' || c == '\r') return 1;
  }
  return 0;
}

static void csv_line(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const char hex[] = "0123456789abcdef";
  sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  for (int i = 0; i < argc; i++) {
    sqlite3_value *v = argv[i];
    if (i) sqlite3_str_appendchar(out, 1, ',');
    switch (sqlite3_value_type(v)) {
      case SQLITE_NULL:
        break;
      case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_value_blob(v);
        int n = sqlite3_value_bytes(v);
        sqlite3_str_append(out, "\\x", 2);
        for (int k = 0; k < n; k++) {
          char pair[2] = { hex[b[k] >> 4], hex[b[k] & 15] };
          sqlite3_str_append(out, pair, 2);
        }
        break;
      }
      case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_value_text(v);
        int n = sqlite3_value_bytes(v);
        if (!needs_quotes(t, n)) {
          sqlite3_str_append(out, (const char *)t, n);
          break;
        }
        sqlite3_str_appendchar(out, 1, '"');
        int from = 0;
        for (int k = 0; k < n; k++) {
          if (t[k] != '"') continue;
          sqlite3_str_append(out, (const char *)t + from, k - from + 1);
          sqlite3_str_appendchar(out, 1, '"');
          from = k + 1;
        }
        sqlite3_str_append(out, (const char *)t + from, n - from);
        sqlite3_str_appendchar(out, 1, '"');
        break;
      }
      default: {
        /* INTEGER and FLOAT: SQLite's own text rendering of the number. */
        const unsigned char *t = sqlite3_value_text(v);
        sqlite3_str_append(out, (const char *)t, sqlite3_value_bytes(v));
      }
    }
  }
  sqlite3_str_append(out, "\r\n", 2);
  int err = sqlite3_str_errcode(out);
  int n = sqlite3_str_length(out);
  char *line = sqlite3_str_finish(out);
  if (err != SQLITE_OK || !line) {
    sqlite3_free(line);
    if (err == SQLITE_TOOBIG) sqlite3_result_error_toobig(ctx);
    else sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, line, n, sqlite3_free);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_enginecsv_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "engine_csv_line", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, csv_line, 0, 0);
}
