/**
 * Text search over fenced targets, shared by the `grep` tool and `GET /api/search`.
 * ripgrep (`rg --json`) when it is on PATH, respecting ignore files; otherwise a symlink-safe walk
 * that applies the same ignore rules and yields the same rows. Rows come back sorted by root, then
 * path, then line, so paging is stable.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { badRequest } from '../../kernel/errors.js';
import { isInside, type Root } from '../../kernel/fence.js';
import { readOwnFile } from '../../kernel/fenced-read.js';
import { LIMITS } from '../../kernel/limits.js';
import { Overrides } from './ignore.js';
import { comparePaths, walkIgnoring } from './walk.js';

export interface SearchTarget {
  root: Root;
  /** Path inside the root ('' for the whole root). */
  rel: string;
  isFile: boolean;
  /** A file target's canonical location (where a link named as the path leads, checked by the fence). */
  real?: string;
}

export interface SearchOptions {
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  include?: string[];
  exclude?: string[];
  targets: SearchTarget[];
  /** Rows wanted, in sorted order (offset + page + 1 for paging). */
  maxRows: number;
  /** true: rows must be the first `maxRows` in sorted order (grep paging); false: any `maxRows` will do, flagged incomplete (search). */
  exact: boolean;
  /** Path to rg, or null to use the walk. */
  rg: string | null;
  signal?: AbortSignal;
  /** Real paths never searched through `root` (the engine home inside a mounted folder). */
  skip?: (real: string, root: Root) => boolean;
}

export interface LineMatch {
  /** Virtual path. */
  path: string;
  line: number;
  /** The whole line, without its line ending. */
  text: string;
  /** Submatches as UTF-16 [start, end) offsets into `text`. */
  subs: Array<[number, number]>;
}

export interface SearchOutcome {
  rows: LineMatch[];
  /** False when the search stopped early (a cap or a time bound); more rows may exist. */
  complete: boolean;
  warnings: string[];
}

/** The executable `name` on PATH (or the given PATH string); null when absent. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Finds `rg` on PATH; null when absent. */
export const findRipgrep = (): string | null => findOnPath(process.platform === 'win32' ? 'rg.exe' : 'rg');

/** The virtual path of `rel` (a `/`-separated path inside `root`, '' for the root itself). */
export const virtualOf = (root: Root, rel: string) => (root.kind === 'workspace' ? rel : rel ? `${root.name}/${rel}` : root.name);

export async function searchText(opts: SearchOptions): Promise<SearchOutcome> {
  // A process argument cannot hold a NUL, and a text search never matches one (binary files are skipped).
  if ([opts.pattern, ...(opts.include ?? []), ...(opts.exclude ?? [])].some((s) => s.includes('\0'))) {
    throw badRequest('the pattern or a file glob contains a NUL byte; search for printable text');
  }
  if (!opts.literal && !opts.rg) compileRegex(opts.pattern, opts.ignoreCase); // a bad regex fails before any walk
  const order = new Map(opts.targets.map((t, i) => [t.root.name, i]));
  const sort = (rows: LineMatch[]) =>
    rows.sort((a, b) => (order.get(rootOf(a, opts.targets)) ?? 0) - (order.get(rootOf(b, opts.targets)) ?? 0) || comparePaths(a.path, b.path) || a.line - b.line);
  if (!opts.rg) {
    const out: SearchOutcome = { rows: [], complete: true, warnings: [] };
    for (const target of opts.targets) {
      const done = await walkTarget(target, opts, out);
      if (!done) break;
    }
    sort(out.rows);
    return out;
  }
  // Unsorted first: ripgrep runs on every core. Only when there are more rows than we may hold do
  // we pay for `--sort path`, which is single-threaded but lets us stop at exactly `maxRows`.
  const cap = opts.exact ? Math.max(LIMITS.grepSortedCap, opts.maxRows) : opts.maxRows;
  const first = await runRipgrep(opts, cap, false);
  if (first.complete || !opts.exact) {
    sort(first.rows);
    return first;
  }
  const sorted: SearchOutcome = { rows: [], complete: true, warnings: [] };
  for (const target of opts.targets) {
    const part = await runRipgrepOn(opts, [target], opts.maxRows - sorted.rows.length, true);
    sorted.rows.push(...part.rows);
    sorted.warnings.push(...part.warnings);
    if (!part.complete) {
      sorted.complete = false;
      break;
    }
  }
  sort(sorted.rows);
  return sorted;
}

function rootOf(row: LineMatch, targets: SearchTarget[]): string {
  for (const t of targets) {
    if (t.root.kind === 'mount' && (row.path === t.root.name || row.path.startsWith(t.root.name + '/'))) return t.root.name;
  }
  return 'workspace';
}

export function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'gi' : 'g');
  } catch (err) {
    throw badRequest(`the pattern is not a valid regular expression (${(err as Error).message}); fix it or search literally`);
  }
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function walkTarget(target: SearchTarget, opts: SearchOptions, out: SearchOutcome): Promise<boolean> {
  const re = compileRegex(opts.literal ? escapeRegex(opts.pattern) : opts.pattern, opts.ignoreCase);
  const deadline = Date.now() + LIMITS.grepRootTimeoutMs;
  const scan = async (rel: string, abs: string): Promise<boolean> => {
    if (Date.now() > deadline) {
      out.complete = false;
      out.warnings.push(`search in ${target.root.name} stopped after ${LIMITS.grepRootTimeoutMs / 1000} s; results are partial`);
      return false;
    }
    // The file itself, never through a link (a row is proven again by the fenced reader before it is answered).
    const buf = await readOwnFile(abs);
    if (!buf) return true;
    if (buf.includes(0)) return true; // binary, as ripgrep skips it
    const lines = buf.toString('utf8').split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
      re.lastIndex = 0;
      const subs: Array<[number, number]> = [];
      let m: RegExpExecArray | null;
      while ((m = re.exec(text))) {
        subs.push([m.index, m.index + m[0].length]);
        if (m[0].length === 0) re.lastIndex++;
        if (re.lastIndex > text.length) break;
      }
      if (!subs.length) continue;
      out.rows.push({ path: virtualOf(target.root, rel), line: i + 1, text, subs });
      if (out.rows.length >= opts.maxRows) {
        out.complete = false;
        return false;
      }
    }
    return true;
  };
  if (target.isFile) {
    return scan(target.rel, target.real ?? path.join(target.root.path, target.rel));
  }
  const base = target.rel ? path.join(target.root.path, target.rel) : target.root.path;
  let go = true;
  // Ignore files between the root and a searched subfolder apply too (ripgrep reads parents then).
  const ancestors: string[] = [];
  const parts = target.rel ? target.rel.split('/') : [];
  for (let i = 0; i < parts.length; i++) ancestors.push(path.join(target.root.path, ...parts.slice(0, i)));
  await walkIgnoring(base, {
    ancestors,
    skip: opts.skip && ((abs: string) => opts.skip!(abs, target.root)),
    overrides: new Overrides(opts.include ?? [], opts.exclude ?? []),
    signal: opts.signal,
    file: async (rel, abs) => {
      go = await scan(target.rel ? `${target.rel}/${rel}` : rel, abs);
      return go;
    },
  });
  return go;
}

async function runRipgrep(opts: SearchOptions, cap: number, sorted: boolean): Promise<SearchOutcome> {
  // One process over every root, unless -g globs (relative to rg's working folder) or nested roots
  // (a mount holding the workspace: rows must be attributed to the root they were reached through).
  const nested = opts.targets.some((a) => opts.targets.some((b) => a !== b && isInside(a.root.path, b.root.path)));
  const combine = !opts.include?.length && !opts.exclude?.length && !nested;
  if (combine) return runRipgrepOn(opts, opts.targets, cap, sorted);
  // -g globs are relative to rg's working folder, so each root gets its own process.
  const parts = await Promise.all(opts.targets.map((t) => runRipgrepOn(opts, [t], cap, sorted)));
  const out: SearchOutcome = { rows: [], complete: true, warnings: [] };
  for (const p of parts) {
    out.rows.push(...p.rows);
    out.warnings.push(...p.warnings);
    if (!p.complete) out.complete = false;
  }
  if (out.rows.length > cap) {
    out.rows.length = cap;
    out.complete = false;
  }
  return out;
}

/** One rg process over `targets`; stops (complete=false) once `cap` rows are in. */
function runRipgrepOn(opts: SearchOptions, targets: SearchTarget[], cap: number, sorted: boolean): Promise<SearchOutcome> {
  const single = targets.length === 1;
  const cwd = single ? targets[0].root.path : undefined;
  const args = ['--json', '--no-require-git', '--no-ignore-global', '--no-messages'];
  // A whole root ignores what lies above it; a subfolder honours the ignore files above it.
  if (!single || !targets[0].rel) args.push('--no-ignore-parent');
  if (sorted) args.push('--sort', 'path');
  if (opts.ignoreCase) args.push('-i');
  if (opts.literal) args.push('-F');
  for (const g of opts.include ?? []) args.push('-g', g);
  for (const g of opts.exclude ?? []) args.push('-g', `!${g}`);
  args.push('-e', opts.pattern, '--');
  for (const t of targets) {
    if (single) args.push(t.rel ? `./${t.rel}` : './');
    else args.push(t.rel ? path.join(t.root.path, t.rel) : t.root.path);
  }
  function rootOfReal(p: string): Root {
    let best: Root | undefined;
    for (const t of targets) if (isInside(p, t.root.path) && (!best || t.root.path.length > best.path.length)) best = t.root;
    return best!;
  }
  const toVirtual = (p: string): string | undefined => {
    if (single) return virtualOf(targets[0].root, p.replace(/^\.\/+/, ''));
    const best = rootOfReal(p);
    if (!best) return undefined;
    return virtualOf(best, path.relative(best.path, p).split(path.sep).join('/'));
  };
  const env = { ...process.env };
  delete env.RIPGREP_CONFIG_PATH;

  return new Promise((resolve, reject) => {
    const out: SearchOutcome = { rows: [], complete: true, warnings: [] };
    const child = spawn(opts.rg!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stopped = false;
    let stderr = '';
    let rest = '';
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      out.complete = false;
      out.warnings.push(`search stopped after ${LIMITS.grepRootTimeoutMs / 1000} s; results are partial`);
      stop();
    }, LIMITS.grepRootTimeoutMs);
    const onAbort = () => stop();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const handle = (line: string) => {
      if (stopped || !line.startsWith('{"type":"match"')) return;
      const data = (JSON.parse(line) as { data: RgMatch }).data;
      const p = data.path.text ?? Buffer.from(data.path.bytes ?? '', 'base64').toString('utf8');
      const virtual = toVirtual(p);
      if (virtual === undefined) return;
      if (opts.skip?.(single ? path.join(targets[0].root.path, p) : p, single ? targets[0].root : rootOfReal(p))) return;
      let text = data.lines.text ?? Buffer.from(data.lines.bytes ?? '', 'base64').toString('utf8');
      text = text.replace(/\r?\n$/, '');
      const ascii = !/[^\x00-\x7f]/.test(text);
      const bytes = ascii ? undefined : Buffer.from(text, 'utf8');
      const idx = (b: number) => (bytes ? bytes.subarray(0, b).toString('utf8').length : b);
      const subs = data.submatches.map((s) => [idx(s.start), idx(s.end)] as [number, number]);
      out.rows.push({ path: virtual, line: data.line_number, text, subs });
      if (out.rows.length >= cap) {
        out.complete = false;
        stop();
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) handle(l);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (rest) handle(rest);
      if (!stopped && code === 2) {
        if (/regex parse error|error parsing regex|unclosed|repetition/i.test(stderr)) {
          const detail = stderr.replace(/\s+/g, ' ').trim().slice(0, 300);
          reject(badRequest(`the pattern is not a valid regular expression (${detail}); fix it or search literally`));
          return;
        }
        if (stderr.trim()) out.warnings.push(stderr.trim().split('\n')[0]);
      }
      resolve(out);
    });
  });
}

interface RgText {
  text?: string;
  bytes?: string;
}
interface RgMatch {
  path: RgText;
  lines: RgText;
  line_number: number;
  submatches: Array<{ start: number; end: number }>;
}
