/**
 * The code of the SQLite worker thread, kept as text so it runs the same from the sources (tsx),
 * from dist/ and from the one-file bundle. better-sqlite3 is synchronous: in the engine's thread a
 * long query would stop every other request, so each SQLite connection runs in a worker of its own.
 * Two handles: a read-only one (SQLITE_OPEN_READONLY plus PRAGMA query_only) for every read and for
 * models, and a read-write one only when the connection is writable. A deadline is checked at every
 * row; a step that produces no row for too long is stopped by terminating the worker (sqlite.ts).
 */
export const SQLITE_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
let ro, rw;
const cursors = new Map();
let nextCursor = 1;

function openReadOnly() {
  const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = 1');
  db.pragma('trusted_schema = 0');
  return db;
}
function readOnlyHandle() {
  if (!ro) ro = openReadOnly();
  return ro;
}
// The engine's own compiled CSV writer (native/sqlite-csv.c), when it was built, on a read-only handle
// of its own that runs nothing but the engine's fixed wrapper around an export already checked on
// the read-only handle. Kept off the handle every other query uses: the writer runs the SQL text it
// is given, so there a string literal could carry what the classifier never saw (an ATTACH, for one).
// Loaded through the C API only: SQL's load_extension() stays disabled on every handle.
let csvHandle;
function nativeCsvHandle() {
  if (csvHandle === undefined) {
    csvHandle = null;
    if (workerData.csvExtension) {
      let db;
      try {
        db = openReadOnly();
        db.loadExtension(workerData.csvExtension, 'sqlite3_enginecsv_init');
        csvHandle = db;
      } catch {
        if (db) db.close(); // the extension would not load: exports build their lines in SQL
      }
    }
  }
  return csvHandle;
}
const NATIVE_CHUNK_BYTES = 64 * 1024;
function writableHandle() {
  if (!workerData.writable) throw Object.assign(new Error('this connection is read-only'), { code: 'ENGINE_READ_ONLY' });
  if (!rw) {
    rw = new Database(workerData.file, { fileMustExist: false });
    rw.pragma('busy_timeout = ' + Number(workerData.busyMs || 5000));
  }
  return rw;
}
function handle(readOnly) { return readOnly ? readOnlyHandle() : writableHandle(); }
function checkReadOnly(db) {
  // A model may not turn query_only off; if anything did, the handle is unusable from here on.
  if (db === ro && db.pragma('query_only', { simple: true }) !== 1) {
    ro.close(); ro = undefined;
    throw new Error('the read-only handle was changed by a statement; nothing after it ran');
  }
}
function timedOut(deadline) {
  if (Date.now() > deadline) throw Object.assign(new Error('the query ran longer than the timeout and was interrupted'), { code: 'ENGINE_TIMEOUT' });
}

function runOne(db, sql, rowLimit, deadline) {
  const started = Date.now();
  const stmt = db.prepare(sql);
  // SQLite's own compiler says whether the statement writes (sqlite3_stmt_readonly): VACUUM INTO,
  // for one, writes a new file even through a read-only handle, so the read-only path refuses it here.
  if (db === ro && !stmt.readonly) throw new Error('SQLite reports that this statement writes; it is refused on the read-only handle');
  if (stmt.reader) {
    const columns = stmt.columns().map((c) => c.name);
    const rows = [];
    let rowCount = 0;
    for (const row of stmt.iterate()) {
      timedOut(deadline);
      if (rowCount < rowLimit) rows.push(row);
      rowCount++;
    }
    return { sql, columns, rows, rowCount, truncated: rowCount > rows.length, durationMs: Date.now() - started };
  }
  const info = stmt.run();
  return { sql, columns: [], rows: [], rowCount: 0, affected: info.changes, truncated: false, durationMs: Date.now() - started };
}

function csvCell(v) {
  if (typeof v === 'number') return String(v);
  if (v === null || v === undefined) return '';
  let t;
  if (v instanceof Uint8Array) t = '\\x' + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  else if (typeof v === 'bigint') t = v.toString();
  else t = String(v);
  return t === '' || /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
}

// Without the compiled writer: the CSV line of a row written by SQLite itself, in SQL, so one string
// per row crosses into JavaScript instead of one value per cell. The dialect is PostgreSQL COPY's:
// NULL empty, text quoted when it holds a quote, comma, CR or LF or is empty, bytes as \x hex,
// numbers as SQLite writes them (what sqlite3 -csv prints); native/sqlite-csv.c writes the same
// bytes. The CTE's column list renames the query's columns by position, so duplicate or odd names
// need no quoting.
function csvLineSql(sql, n) {
  const cols = [];
  for (let i = 0; i < n; i++) cols.push('engine_c' + i);
  const cell = (c) =>
    "CASE typeof(" + c + ") WHEN 'text' THEN IIF(instr(" + c + ", '\"') OR instr(" + c + ", ',') OR instr(" + c + ", char(10)) OR instr(" + c + ", char(13)) OR " + c + " = '', " +
    "'\"' || replace(" + c + ", '\"', '\"\"') || '\"', " + c + ") WHEN 'null' THEN '' WHEN 'blob' THEN '\\x' || lower(hex(" + c + ")) ELSE " + c + " END";
  return 'WITH engine_csv(' + cols.join(', ') + ') AS (\n' + sql + '\n)\nSELECT ' + cols.map(cell).join(" || ',' || ") + ' || char(13, 10) FROM engine_csv';
}

const ops = {
  ping() { handle(!workerData.writable).prepare('SELECT count(*) FROM sqlite_schema').get(); return true; },
  run({ statements, readOnly, rowLimit, deadline }) {
    const db = handle(readOnly);
    const results = [];
    for (const sql of statements) {
      try {
        results.push(runOne(db, sql, rowLimit, deadline));
        checkReadOnly(db);
      } catch (err) {
        err.partial = results; err.failedSql = sql;
        throw err;
      }
    }
    return results;
  },
  select({ sql, params, deadline }) {
    const rows = [];
    for (const row of readOnlyHandle().prepare(sql).iterate(...params)) { timedOut(deadline); rows.push(row); }
    return rows;
  },
  write({ sql, params, expectAtMost }) {
    const db = writableHandle();
    return db.transaction(() => {
      const info = db.prepare(sql).run(...params);
      if (expectAtMost !== undefined && info.changes > expectAtMost) {
        throw Object.assign(new Error('the statement would change ' + info.changes + ' rows; nothing was changed'), { code: 'ENGINE_TOO_MANY' });
      }
      return info.changes;
    })();
  },
  cursorOpen({ sql, readOnly }) {
    const stmt = handle(readOnly).prepare(sql);
    if (!stmt.reader) throw new Error('an export needs a statement that returns rows');
    const cursor = nextCursor++;
    cursors.set(cursor, { columns: stmt.columns().map((c) => c.name), it: stmt.iterate() });
    return { cursor, columns: cursors.get(cursor).columns };
  },
  csvOpen({ sql }) {
    const stmt = readOnlyHandle().prepare(sql);
    if (!stmt.reader) throw new Error('an export needs a statement that returns rows');
    if (!stmt.readonly) throw new Error('SQLite reports that this statement writes; it is refused on the read-only handle');
    const cursor = nextCursor++;
    const columns = stmt.columns().map((c) => c.name);
    const chunked = nativeCsvHandle();
    if (chunked) {
      // Whole chunks of CSV text from C: one crossing into JavaScript per ~64 KB, not one per row.
      const it = chunked.prepare('SELECT chunk, rows FROM engine_csv_chunks(?, ?)').raw(true).iterate(sql, NATIVE_CHUNK_BYTES);
      cursors.set(cursor, { columns, chunks: true, it });
      return { cursor, header: columns.map(csvCell).join(',') + '\r\n' };
    }
    let lines;
    try {
      const wrapped = readOnlyHandle().prepare(csvLineSql(sql, columns.length));
      if (wrapped.readonly && wrapped.columns().length === 1) lines = wrapped.pluck(true).iterate();
    } catch {
      // A statement a CTE cannot hold (a PRAGMA that returns rows, for one): encoded here instead.
    }
    cursors.set(cursor, { columns, lines, it: lines ?? stmt.raw(true).iterate() });
    return { cursor, header: columns.map(csvCell).join(',') + '\r\n' };
  },
  // Rows encoded until about the asked number of characters, sent as one string: one copy into the
  // engine's thread, which only writes it to the socket. (Transferring UTF-8 bytes instead was no
  // faster and left more memory waiting for the engine thread's collector.)
  csvNext({ cursor, chars }) {
    const c = cursors.get(cursor);
    if (!c) return { text: '', rows: 0 };
    const parts = [];
    let size = 0;
    let k = 0;
    while (size < chars) {
      const r = c.it.next();
      if (r.done) { cursors.delete(cursor); break; }
      if (c.chunks) {
        parts.push(r.value[0]);
        size += r.value[0].length;
        k += r.value[1];
        continue;
      }
      let line = r.value;
      if (!c.lines) {
        const row = r.value;
        line = csvCell(row[0]);
        for (let j = 1; j < row.length; j++) line += ',' + csvCell(row[j]);
        line += '\r\n';
      }
      parts.push(line);
      size += line.length;
      k++;
    }
    return { text: parts.join(''), rows: k };
  },
  cursorNext({ cursor, count }) {
    const c = cursors.get(cursor);
    if (!c) return [];
    const rows = [];
    while (rows.length < count) {
      const r = c.it.next();
      if (r.done) { cursors.delete(cursor); break; }
      rows.push(r.value);
    }
    return rows;
  },
  cursorClose({ cursor }) {
    const c = cursors.get(cursor);
    if (c) { c.it.return(); cursors.delete(cursor); }
    return true;
  },
  close() {
    for (const c of cursors.values()) c.it.return();
    cursors.clear();
    if (ro) ro.close();
    if (rw) rw.close();
    if (csvHandle) csvHandle.close();
    ro = rw = csvHandle = undefined;
    return true;
  },
};

parentPort.on('message', (msg) => {
  try {
    parentPort.postMessage({ id: msg.id, ok: true, value: ops[msg.op](msg) });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, error: { message: String(err && err.message || err), code: err && err.code, partial: err && err.partial, failedSql: err && err.failedSql } });
  }
});
`;
