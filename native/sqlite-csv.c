/*
 * CSV for SQLite exports (src/capabilities/db/drivers/sqlite-worker.ts), written in C because
 * building each line in SQL, and handing each line to JavaScript, cost more than stepping the rows
 * (docs/performance.md, Databases).
 *
 *   SELECT chunk, rows FROM engine_csv_chunks(<one read-only SELECT>, <bytes>)
 *
 * runs the statement on the same connection and answers its rows as CSV text, about <bytes> at a
 * time (whole lines, CRLF-terminated), with how many rows each chunk holds. The dialect is
 * PostgreSQL COPY's, as on every engine: NULL empty; text quoted when empty or holding a quote,
 * comma, CR or LF, quotes doubled; blobs as \x and lower-case hex; numbers as SQLite renders them
 * (what `sqlite3 -csv` prints). A statement that writes, or answers no rows (ATTACH, BEGIN), is
 * refused; the engine loads this only into a read-only handle that runs nothing but its own wrapper
 * around an export already checked elsewhere, so no query a person or a model writes can reach it.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <string.h>

static void append_value(sqlite3_str *out, sqlite3_value *v) {
  static const char hex[] = "0123456789abcdef";
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      return;
    case SQLITE_BLOB: {
      const unsigned char *b = sqlite3_value_blob(v);
      int n = sqlite3_value_bytes(v);
      sqlite3_str_append(out, "\\x", 2);
      for (int k = 0; k < n; k++) {
        char pair[2] = { hex[b[k] >> 4], hex[b[k] & 15] };
        sqlite3_str_append(out, pair, 2);
      }
      return;
    }
    case SQLITE_TEXT: {
      const unsigned char *t = sqlite3_value_text(v);
      int n = sqlite3_value_bytes(v);
      int quote = n == 0;
      for (int k = 0; k < n && !quote; k++) quote = t[k] == '"' || t[k] == ',' || t[k] == '\n' || t[k] == '\r';
      if (!quote) {
        sqlite3_str_append(out, (const char *)t, n);
        return;
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
      return;
    }
    default: /* INTEGER and FLOAT: SQLite's own text rendering of the number */
      sqlite3_str_append(out, (const char *)sqlite3_value_text(v), sqlite3_value_bytes(v));
  }
}

enum { COL_CHUNK, COL_ROWS, COL_SQL, COL_BYTES };

typedef struct {
  sqlite3_vtab base;
  sqlite3 *db;
} ChunksTable;

typedef struct {
  sqlite3_vtab_cursor base;
  sqlite3_stmt *stmt;
  char *chunk;
  int chunk_len;
  sqlite3_int64 rows;
  sqlite3_int64 rowid;
  int limit;
  int done;
} ChunksCursor;

static int chunks_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(chunk TEXT, rows INTEGER, sql HIDDEN, bytes HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  ChunksTable *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->db = db;
  /* It runs the SQL it is given: never from a view or trigger a database file brings. */
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *out = &t->base;
  return SQLITE_OK;
}

static int chunks_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Both hidden arguments must be given as equalities: sql as the first argument, bytes the second. */
static int chunks_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  int sql = -1, bytes = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c->iColumn == COL_SQL) { if (!c->usable) return SQLITE_CONSTRAINT; sql = i; }
    if (c->iColumn == COL_BYTES) { if (!c->usable) return SQLITE_CONSTRAINT; bytes = i; }
  }
  if (sql < 0 || bytes < 0) return SQLITE_CONSTRAINT;
  info->aConstraintUsage[sql].argvIndex = 1;
  info->aConstraintUsage[sql].omit = 1;
  info->aConstraintUsage[bytes].argvIndex = 2;
  info->aConstraintUsage[bytes].omit = 1;
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

static int chunks_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  ChunksCursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int chunks_close(sqlite3_vtab_cursor *cur) {
  ChunksCursor *c = (ChunksCursor *)cur;
  sqlite3_finalize(c->stmt);
  sqlite3_free(c->chunk);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int fail(ChunksCursor *c, int rc, const char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
  return rc;
}

/* The next chunk: whole lines until about `limit` bytes, or the last rows. */
static int fill(ChunksCursor *c) {
  sqlite3_free(c->chunk);
  c->chunk = 0;
  c->chunk_len = 0;
  c->rows = 0;
  if (c->done) return SQLITE_OK;
  sqlite3 *db = ((ChunksTable *)c->base.pVtab)->db;
  sqlite3_str *out = sqlite3_str_new(db);
  int columns = sqlite3_column_count(c->stmt);
  /* Stops at the first failure of the string (out of memory, too big): its length reads 0 from then on. */
  while (sqlite3_str_errcode(out) == SQLITE_OK && sqlite3_str_length(out) < c->limit) {
    int rc = sqlite3_step(c->stmt);
    if (rc == SQLITE_DONE) { c->done = 1; break; }
    if (rc != SQLITE_ROW) {
      sqlite3_free(sqlite3_str_finish(out));
      return fail(c, rc, sqlite3_errmsg(db));
    }
    for (int i = 0; i < columns; i++) {
      if (i) sqlite3_str_appendchar(out, 1, ',');
      append_value(out, sqlite3_column_value(c->stmt, i));
    }
    sqlite3_str_append(out, "\r\n", 2);
    c->rows++;
  }
  int err = sqlite3_str_errcode(out);
  c->chunk_len = sqlite3_str_length(out);
  c->chunk = sqlite3_str_finish(out);
  if (err != SQLITE_OK) return fail(c, err, err == SQLITE_TOOBIG ? "a CSV chunk grew too big" : "out of memory");
  return SQLITE_OK;
}

static int chunks_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx; (void)idx_str;
  ChunksCursor *c = (ChunksCursor *)cur;
  sqlite3 *db = ((ChunksTable *)cur->pVtab)->db;
  sqlite3_finalize(c->stmt);
  c->stmt = 0;
  c->done = 0;
  c->rowid = 0;
  if (argc < 2 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) return fail(c, SQLITE_MISUSE, "engine_csv_chunks needs the SQL text and a chunk size");
  sqlite3_int64 limit = sqlite3_value_int64(argv[1]);
  c->limit = limit < 1 ? 1 : limit > (1 << 24) ? (1 << 24) : (int)limit;
  const char *tail = 0;
  int rc = sqlite3_prepare_v2(db, (const char *)sqlite3_value_text(argv[0]), -1, &c->stmt, &tail);
  if (rc != SQLITE_OK) return fail(c, rc, sqlite3_errmsg(db));
  if (!c->stmt) return fail(c, SQLITE_MISUSE, "engine_csv_chunks needs a statement");
  if (!sqlite3_stmt_readonly(c->stmt)) return fail(c, SQLITE_READONLY, "SQLite reports that this statement writes; an export only reads");
  /* ATTACH, BEGIN and their kind count as read-only for SQLite but answer no rows: not an export. */
  if (sqlite3_column_count(c->stmt) == 0) return fail(c, SQLITE_MISUSE, "an export needs a statement that returns rows");
  return fill(c);
}

static int chunks_next(sqlite3_vtab_cursor *cur) {
  ChunksCursor *c = (ChunksCursor *)cur;
  c->rowid++;
  return fill(c);
}

static int chunks_eof(sqlite3_vtab_cursor *cur) {
  ChunksCursor *c = (ChunksCursor *)cur;
  return c->rows == 0;
}

static int chunks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  ChunksCursor *c = (ChunksCursor *)cur;
  if (col == COL_CHUNK) sqlite3_result_text(ctx, c->chunk ? c->chunk : "", c->chunk_len, SQLITE_TRANSIENT);
  else if (col == COL_ROWS) sqlite3_result_int64(ctx, c->rows);
  else sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int chunks_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((ChunksCursor *)cur)->rowid;
  return SQLITE_OK;
}

static sqlite3_module chunks_module = {
  0,                 /* iVersion */
  0,                 /* xCreate: 0 makes it eponymous-only (a table-valued function, never a CREATE) */
  chunks_connect,
  chunks_best_index,
  chunks_disconnect,
  0,                 /* xDestroy */
  chunks_open,
  chunks_close,
  chunks_filter,
  chunks_next,
  chunks_eof,
  chunks_column,
  chunks_rowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_enginecsv_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_module(db, "engine_csv_chunks", &chunks_module, 0);
}
