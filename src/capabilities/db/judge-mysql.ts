/**
 * A MariaDB/MySQL read may call only what is known to be harmless: a built-in on the allowlist
 * (mysql-builtins.ts), or a stored function of the database that is declared DETERMINISTIC, does
 * not declare MODIFIES SQL DATA, and whose body (information_schema.ROUTINES) the engine reads and
 * finds harmless: no statement that writes, locks, ends the transaction or runs prepared SQL, no
 * assignment to anything but its own DECLAREd variables, and every function it calls judged by
 * these same rules. A declaration alone is not trusted: MariaDB does not check it. A UDF
 * (mysql.func, a C library loaded into the server, sys_exec and kin) is forbidden; any other name
 * is not known and refused. A view runs its query when read: a statement that names one takes the
 * verdict of its definition (information_schema.VIEWS). `NEXT VALUE FOR` advances a sequence: a write.
 *
 * What is read from the server is kept LIMITS.dbCatalogCacheMs per connection, and dropped when the
 * engine runs a write (service.ts).
 */
import { LIMITS } from '../../kernel/limits.js';
import { lexNameTier, type ClassifiedStatement, type LexedText, type StatementJudge } from './classify.js';
import { LEXER_MODES } from './drivers/mysql.js';
import { MYSQL_BUILTIN_PREFIXES, MYSQL_BUILTINS, MYSQL_BUILTINS_WITHOUT_ARGUMENTS, MYSQL_SYNTAX_BEFORE_PARENS } from './mysql-builtins.js';
import { lex, type Token } from './sql-lexer.js';
import type { DbDriver } from './types.js';

type Verdict = Awaited<ReturnType<StatementJudge>>;

interface Routine {
  schema: string;
  name: string;
  deterministic: boolean;
  access: string;
  body: string | null;
  /** The sql_mode it was created under: its body is read by it. */
  mode: string;
}

interface View {
  schema: string;
  name: string;
  /** As the server keeps it (names quoted and qualified); empty when this user may not see it. */
  definition: string;
}

interface Call {
  schema?: string;
  name: string;
  /** `name()` with nothing between the parentheses. */
  empty: boolean;
}

/** Statements a function body may not hold (as a statement: INSERT(...) and REPLACE(...) are string functions). */
const BODY_WRITES = new Set([
  'insert', 'update', 'delete', 'replace', 'merge', 'upsert', 'create', 'drop', 'alter', 'truncate', 'grant', 'revoke', 'lock',
  'unlock', 'rename', 'call', 'load', 'flush', 'kill', 'install', 'uninstall', 'shutdown', 'prepare', 'execute', 'deallocate',
  'commit', 'rollback', 'savepoint', 'start', 'xa', 'purge', 'reset', 'optimize', 'repair', 'analyze', 'binlog', 'backup',
]);

const write = (reason: string): Verdict => ({ class: 'write', reason });
const worse = (a: Verdict, b: Verdict): Verdict => (!a ? b : !b ? a : a.class === 'forbidden' || b.class !== 'forbidden' ? a : b);

const isName = (t: Token | undefined) => t?.type === 'word' || t?.type === 'qident';
const isPunct = (t: Token | undefined, v: string) => t?.type === 'punct' && t.value === v;

/** The index of the parenthesis closing the one at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (isPunct(tokens[k], '(')) depth++;
    else if (isPunct(tokens[k], ')') && --depth === 0) return k;
  }
  return tokens.length;
}

/**
 * Every call in the tokens: `name(`, `` `name`( ``, `db.name(`; not syntax before a parenthesis, a
 * CTE's column list, or `AS alias(`. `text` is what the tokens' offsets point into: a database name
 * keeps its case there (the lexer lower-cases words; MariaDB compares database names by case).
 */
export function callSites(tokens: Token[], text: string): Call[] {
  const calls: Call[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k];
    if (!isName(t) || !isPunct(tokens[k + 1], '(')) continue;
    const name = t.value.toLowerCase();
    const before = tokens[k - 1];
    if (t.type === 'word' && MYSQL_SYNTAX_BEFORE_PARENS.has(name)) continue;
    if (before?.type === 'word' && before.value === 'as') continue; // AS alias (columns)
    const end = closing(tokens, k + 1);
    if (tokens[end + 1]?.type === 'word' && tokens[end + 1].value === 'as' && isPunct(tokens[end + 2], '(')) continue; // WITH name (columns) AS (
    const qualified = isPunct(before, '.') && isName(tokens[k - 2]);
    const schema = tokens[k - 2];
    calls.push({ ...(qualified ? { schema: schema.type === 'word' ? text.slice(schema.start, schema.end) : schema.value } : {}), name, empty: end === k + 2 });
  }
  return calls;
}

const builtIn = (call: Call) =>
  !call.schema && (MYSQL_BUILTINS.has(call.name) || MYSQL_BUILTIN_PREFIXES.some((p) => call.name.startsWith(p)) || (call.empty && MYSQL_BUILTINS_WITHOUT_ARGUMENTS.has(call.name)));

export function createMysqlJudge(driver: DbDriver): { judge: StatementJudge; forget(): void } {
  let state = fresh();
  function fresh() {
    return {
      readAt: Date.now(),
      routines: new Map<string, Promise<Routine | null>>(),
      udfs: undefined as Promise<Set<string>> | undefined,
      views: undefined as Promise<Map<string, View[]>> | undefined,
      memo: new Map<string, Verdict>(),
    };
  }
  const current = () => {
    if (Date.now() - state.readAt > LIMITS.dbCatalogCacheMs) state = fresh();
    return state;
  };

  const routine = (call: Call): Promise<Routine | null> => {
    const s = current();
    const key = `${call.schema ?? ''}.${call.name}`;
    let found = s.routines.get(key);
    if (!found) {
      found = driver
        .select(
          `SELECT ROUTINE_SCHEMA AS s, ROUTINE_NAME AS n, IS_DETERMINISTIC AS d, SQL_DATA_ACCESS AS a, ROUTINE_DEFINITION AS b, SQL_MODE AS m
             FROM information_schema.ROUTINES
            WHERE ROUTINE_TYPE = 'FUNCTION' AND ROUTINE_SCHEMA = COALESCE(?, DATABASE()) AND ROUTINE_NAME = ?`,
          [call.schema ?? null, call.name],
        )
        .then(([r]) =>
          r ? { schema: String(r.s), name: String(r.n), deterministic: r.d === 'YES', access: String(r.a), body: r.b === null ? null : String(r.b), mode: String(r.m) } : null,
        );
      found.catch(() => s.routines.delete(key));
      s.routines.set(key, found);
    }
    return found;
  };
  // mysql.func needs SELECT on the mysql schema; a user without it cannot tell, and refuses the name as unknown.
  const udfs = () =>
    (current().udfs ??= driver.select('SELECT name FROM mysql.func', []).then(
      (rows) => new Set(rows.map((r) => String(r.name).toLowerCase())),
      () => new Set<string>(),
    ));

  // Every view the user can see, by name: reading one runs its query, so a statement naming it takes its verdict.
  const views = () => {
    const s = current();
    s.views ??= driver.select('SELECT TABLE_SCHEMA AS s, TABLE_NAME AS n, VIEW_DEFINITION AS d FROM information_schema.VIEWS', []).then(
      (rows) => {
        const byName = new Map<string, View[]>();
        for (const r of rows) {
          const name = String(r.n);
          byName.set(name.toLowerCase(), [...(byName.get(name.toLowerCase()) ?? []), { schema: String(r.s), name, definition: String(r.d ?? '') }]);
        }
        return byName;
      },
      (err) => {
        s.views = undefined;
        throw err;
      },
    );
    return s.views;
  };

  async function judgeTokens(tokens: Token[], text: string, depth: number, open: Set<string>): Promise<Verdict> {
    let verdict: Verdict;
    const words = tokens.map((t) => (t.type === 'word' ? t.value : ''));
    if (words.some((w, k) => w === 'next' && words[k + 1] === 'value' && words[k + 2] === 'for')) verdict = write('NEXT VALUE FOR advances a sequence');
    for (const call of callSites(tokens, text)) {
      const tier = call.schema ? undefined : lexNameTier(call.name, 'mysql');
      if (tier) verdict = worse(verdict, tier);
      else if (!builtIn(call)) verdict = worse(verdict, await judgeCall(call, depth, open));
    }
    // Any name that is a view's (a table, a column or an alias may share it: judged all the same).
    const named = await views();
    const seen = new Set<View>();
    for (const t of tokens) if (isName(t)) for (const view of named.get(t.value.toLowerCase()) ?? []) seen.add(view);
    for (const view of seen) verdict = worse(verdict, await once(`view ${view.schema}.${view.name}`, open, () => judgeView(view, depth, open)));
    return verdict;
  }

  /** A routine's or view's verdict, kept unless it leaned on one still being judged (recursion, judged where it started). */
  async function once(key: string, open: Set<string>, judge: () => Promise<Verdict>): Promise<Verdict> {
    const s = current();
    if (s.memo.has(key)) return s.memo.get(key);
    if (open.has(key)) return undefined;
    open.add(key);
    try {
      const verdict = await judge();
      if (open.size === 1) s.memo.set(key, verdict);
      return verdict;
    } finally {
      open.delete(key);
    }
  }

  async function judgeCall(call: Call, depth: number, open: Set<string>): Promise<Verdict> {
    const r = await routine(call);
    if (!r) {
      if (!call.schema && (await udfs()).has(call.name)) return { class: 'forbidden', reason: `${call.name}() is a UDF (mysql.func): a library loaded into the server, which can reach outside the database` };
      return write(`${call.name}() is not a built-in function the engine knows to be harmless, nor a stored function of ${call.schema ?? 'this database'}`);
    }
    return once(`${r.schema}.${r.name}`, open, () => judgeRoutine(r, depth, open));
  }

  async function judgeView(view: View, depth: number, open: Set<string>): Promise<Verdict> {
    const name = `the view ${view.schema}.${view.name}`;
    if (!view.definition) return write(`${name}'s query cannot be read by this user, so it cannot be judged`);
    if (depth >= LIMITS.dbJudgeDepth) return write(`${name} nests views more than ${LIMITS.dbJudgeDepth} levels deep`);
    const lexed = lex(view.definition, 'mysql');
    if (lexed.unterminated) return write(`${name}'s query cannot be read with certainty (${lexed.unterminated})`);
    const verdict = await judgeTokens(lexed.tokens, view.definition, depth + 1, open);
    return verdict && { class: verdict.class, reason: `${name}: ${verdict.reason}` };
  }

  async function judgeRoutine(r: Routine, depth: number, open: Set<string>): Promise<Verdict> {
    const name = `${r.schema}.${r.name}()`;
    if (!r.deterministic) return write(`${name} is not declared DETERMINISTIC, so not known to be free of effects`);
    if (r.access === 'MODIFIES SQL DATA') return write(`${name} is declared MODIFIES SQL DATA`);
    if (r.body === null) return write(`${name}'s body cannot be read by this user, so it cannot be judged`);
    const mode = r.mode.split(',').find((m) => LEXER_MODES.has(m));
    if (mode) return write(`${name} was created under sql_mode ${mode}, which reads its body otherwise than the engine does`);
    if (depth >= LIMITS.dbJudgeDepth) return write(`${name} calls functions more than ${LIMITS.dbJudgeDepth} levels deep`);
    let verdict: Verdict;
    for (const versionComments of ['run', 'skip'] as const) {
      const lexed = lex(r.body, 'mysql', { versionComments });
      if (lexed.unterminated) return write(`${name}'s body cannot be read with certainty (${lexed.unterminated})`);
      const body = bodyVerdict(lexed.tokens);
      if (body) return { class: body.class, reason: `${name}'s body ${body.what}` };
      verdict = worse(verdict, await judgeTokens(lexed.tokens, r.body, depth + 1, open));
      if (!lexed.versioned) break;
    }
    return verdict && { class: verdict.class, reason: `${name}: ${verdict.reason}` };
  }

  return {
    async judge(statement: ClassifiedStatement) {
      let verdict: Verdict;
      const lexed = statement.tree as LexedText | undefined;
      for (const tokens of lexed?.readings ?? []) verdict = worse(verdict, await judgeTokens(tokens, lexed!.text, 0, new Set()));
      return verdict;
    },
    forget: () => void (state = fresh()),
  };
}

/** What in a function body is not a read, as a phrase, or undefined. */
function bodyVerdict(tokens: Token[]): { class: 'write' | 'forbidden'; what: string } | undefined {
  const declared = new Set<string>();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.type === 'word' && t.value === 'declare') {
      for (let j = k + 1; isName(tokens[j]); j += 2) {
        declared.add(tokens[j].value.toLowerCase());
        if (!isPunct(tokens[j + 1], ',')) break;
      }
    }
  }
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.type === 'word' && (t.value === 'outfile' || t.value === 'dumpfile')) return { class: 'forbidden', what: `writes a server file (${t.value.toUpperCase()})` };
    if (t.type === 'word' && BODY_WRITES.has(t.value) && !isPunct(tokens[k + 1], '(')) return { class: 'write', what: `holds ${t.value.toUpperCase()}` };
    if (t.type === 'word' && t.value === 'set' && !(isName(tokens[k + 1]) && declared.has(tokens[k + 1].value.toLowerCase()))) return { class: 'write', what: 'sets something it did not DECLARE' };
    // SELECT or FETCH ... INTO: every target one of its own variables (a user variable @x outlives the call; OUTFILE is met next).
    if (t.type === 'word' && t.value === 'into' && !(tokens[k + 1]?.type === 'word' && (tokens[k + 1].value === 'outfile' || tokens[k + 1].value === 'dumpfile'))) {
      for (let j = k + 1; ; j += 2) {
        if (!(isName(tokens[j]) && declared.has(tokens[j].value.toLowerCase()))) return { class: 'write', what: 'puts a value INTO something it did not DECLARE' };
        if (!isPunct(tokens[j + 1], ',')) break;
      }
    }
    if (isPunct(t, ':') && isPunct(tokens[k + 1], '=')) return { class: 'write', what: 'assigns a user variable (:=)' };
  }
  return undefined;
}
