/**
 * The apply corpus: real edits from this repository's own git history, made into the lazy snippets
 * models write. Every TypeScript file under src/ that a commit modified, up to a pinned commit of
 * main (so the corpus is the same in every full clone), is one edit: its changes as git finds them
 * (`-U0`), spliced onto the old side and compared with the new side.
 *
 * A snippet at context N keeps N unchanged lines around each change, widened only until that run of
 * lines is unique in the file (what a model that has read the file writes, and the least it can
 * write); changes whose context runs touch share one chunk; a marker line stands for every gap and
 * for each file edge the chunks do not reach. "Edge markers left out" drops the first and last
 * marker (a model that forgot them).
 *   npx tsx test/editor/apply-corpus.ts          prints the counts of every variant
 *   SHOW=5 npx tsx test/editor/apply-corpus.ts   and the first wrong merges of each
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { splice } from '../../src/capabilities/editor/splice.js';

/** The last commit of main the corpus reads: history up to it is the same in every full clone. */
export const CORPUS_TIP = '3ae572c91f0551b8b05ff4f9fc82c24a381e182b';
const PATHS = ['src/*.ts'];
const MARKER = '// ... existing code ...';

/** One modified file: both sides and the changed line ranges (0-based, old and new). */
export interface Edit {
  commit: string;
  path: string;
  before: string[];
  after: string[];
  trailingNewline: boolean;
  changes: Array<{ oldStart: number; oldLength: number; newStart: number; newLength: number }>;
}

/** Why the corpus cannot be read here (a shallow clone, no git), or undefined. */
export function corpusUnavailable(repo: string): string | undefined {
  const git = spawnSync('git', ['-C', repo, 'cat-file', '-e', `${CORPUS_TIP}^{commit}`]);
  if (git.status === 0) return undefined;
  const shallow = spawnSync('git', ['-C', repo, 'rev-parse', '--is-shallow-repository'], { encoding: 'utf8' });
  if (shallow.status !== 0) return `${repo} is not a git checkout, so there is no history to build the apply corpus from`;
  if (shallow.stdout.trim() === 'true') return `this clone is shallow, so the apply corpus's commits (up to ${CORPUS_TIP.slice(0, 8)}) are not here`;
  return undefined; // a full clone without the tip: the test fails on it
}

export function loadEdits(repo: string, tip = CORPUS_TIP): Edit[] {
  const log = execFileSync('git', ['-C', repo, 'log', tip, '--no-merges', '--format=commit %H', '-p', '-U0', '--no-color', '--no-renames', '--full-index', '--diff-filter=M', '--', ...PATHS], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const pending: Array<Omit<Edit, 'before' | 'after' | 'trailingNewline'> & { oldBlob: string; newBlob: string }> = [];
  let commit = '';
  let current: (typeof pending)[number] | undefined;
  for (const line of log.split('\n')) {
    if (line.startsWith('commit ')) {
      commit = line.slice(7);
      current = undefined;
    } else if (line.startsWith('diff --git ')) {
      current = { commit, path: line.slice(line.indexOf(' b/') + 3), oldBlob: '', newBlob: '', changes: [] };
      pending.push(current);
    } else if (current && line.startsWith('index ')) {
      [current.oldBlob, current.newBlob] = line.slice(6).split(' ')[0].split('..');
    } else if (current && line.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const oldLength = m[2] === undefined ? 1 : Number(m[2]);
      const newLength = m[4] === undefined ? 1 : Number(m[4]);
      // A side of length 0 names the line before the change (1-based), so its 0-based start is that number.
      current.changes.push({ oldStart: Number(m[1]) - (oldLength ? 1 : 0), oldLength, newStart: Number(m[3]) - (newLength ? 1 : 0), newLength });
    }
  }
  const blobs = readBlobs(repo, pending.flatMap((p) => [p.oldBlob, p.newBlob]));
  const edits: Edit[] = [];
  for (const { oldBlob, newBlob, ...p } of pending) {
    const before = blobs.get(oldBlob);
    const after = blobs.get(newBlob);
    // Files that do not end in a newline on both sides make git's last-line changes ambiguous; there are none in src/.
    if (before === undefined || after === undefined || !p.changes.length || !before.endsWith('\n') || !after.endsWith('\n')) continue;
    edits.push({ ...p, before: before.slice(0, -1).split('\n'), after: after.slice(0, -1).split('\n'), trailingNewline: true });
  }
  return edits;
}

function readBlobs(repo: string, ids: string[]): Map<string, string> {
  const unique = [...new Set(ids.filter(Boolean))];
  const res = spawnSync('git', ['-C', repo, 'cat-file', '--batch'], { input: unique.join('\n') + '\n', maxBuffer: 1024 * 1024 * 1024 });
  const buf = res.stdout;
  const blobs = new Map<string, string>();
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    const [id, type, size] = buf.subarray(at, nl).toString().split(' ');
    if (type === 'missing' || size === undefined) {
      at = nl + 1;
      continue;
    }
    const n = Number(size);
    blobs.set(id, buf.subarray(nl + 1, nl + 1 + n).toString('utf8'));
    at = nl + 1 + n + 1;
  }
  return blobs;
}

/** How often each run of `width` lines starting at each line occurs in `lines`; memoised per width. */
class Uniqueness {
  private readonly counts = new Map<number, Map<string, number>>();
  constructor(private readonly lines: string[]) {}
  unique(start: number, width: number): boolean {
    let counts = this.counts.get(width);
    if (!counts) {
      counts = new Map();
      for (let i = 0; i + width <= this.lines.length; i++) {
        const key = this.key(i, width);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      this.counts.set(width, counts);
    }
    return counts.get(this.key(start, width)) === 1;
  }
  private key(start: number, width: number): string {
    return this.lines.slice(start, start + width).map((l) => l.trimEnd()).join('\n');
  }
}

/**
 * The edit as a lazy snippet with `context` unchanged lines around each change (more where fewer are
 * not unique in the old file), markers in the gaps and, unless `edgeMarkers` is false, at the edges.
 */
export function snippetOf(edit: Edit, context: number, edgeMarkers = true, widen = true): string {
  const { after, changes } = edit;
  const unique = new Uniqueness(edit.before);
  const ranges: Array<[number, number]> = [];
  changes.forEach((c, i) => {
    const shift = c.oldStart - c.newStart; // old index of a new line in the unchanged stretch around c
    const floor = i ? changes[i - 1].newStart + changes[i - 1].newLength : 0;
    const ceiling = i + 1 < changes.length ? changes[i + 1].newStart : after.length;
    let from = Math.max(floor, c.newStart - context);
    while (widen && from > floor && !unique.unique(from + shift, c.newStart - from)) from--;
    const end = c.newStart + c.newLength;
    const oldEnd = c.oldStart + c.oldLength;
    let to = Math.min(ceiling, end + context);
    while (widen && to < ceiling && !unique.unique(oldEnd, to - end)) to++;
    const last = ranges.at(-1);
    if (last && from <= last[1]) last[1] = to;
    else ranges.push([from, to]);
  });
  const out: string[] = [];
  ranges.forEach(([from, to], i) => {
    if (i > 0 || (from > 0 && edgeMarkers)) out.push(MARKER);
    out.push(...after.slice(from, to));
  });
  if (ranges.at(-1)![1] < after.length && edgeMarkers) out.push(MARKER);
  return out.join('\n') + '\n';
}

export interface Counts {
  total: number;
  exact: number;
  refused: number;
  wrong: number;
  wrongEdits: Edit[];
}

export function score(edits: Edit[], context: number, edgeMarkers = true, widen = true): Counts {
  const counts: Counts = { total: edits.length, exact: 0, refused: 0, wrong: 0, wrongEdits: [] };
  for (const edit of edits) {
    const before = edit.before.join('\n') + '\n';
    const after = edit.after.join('\n') + '\n';
    const result = splice(before, snippetOf(edit, context, edgeMarkers, widen));
    if (result.merged === null) counts.refused++;
    else if (result.merged === after) counts.exact++;
    else {
      counts.wrong++;
      counts.wrongEdits.push(edit);
    }
  }
  return counts;
}

/** The snippet forms measured, each with its aim (issue 44 §1; the last two are this corpus's own bar). */
export const VARIANTS: Array<{ name: string; context: number; edgeMarkers: boolean; widen?: boolean; exact?: number; wrong: number }> = [
  { name: 'one line of context', context: 1, edgeMarkers: true, exact: 90, wrong: 1 },
  { name: 'two lines of context', context: 2, edgeMarkers: true, exact: 90, wrong: 1 },
  { name: 'three lines of context', context: 3, edgeMarkers: true, exact: 95, wrong: 1 },
  { name: 'one line, edge markers left out', context: 1, edgeMarkers: false, wrong: 2 },
  { name: 'three lines, edge markers left out', context: 3, edgeMarkers: false, wrong: 2 },
  { name: 'one line even where it is not unique', context: 1, edgeMarkers: true, widen: false, wrong: 1 },
  { name: 'two lines even where they are not unique', context: 2, edgeMarkers: true, widen: false, wrong: 2 },
];

export const percent = (n: number, total: number) => `${((100 * n) / Math.max(1, total)).toFixed(1)} %`;

export function describe(c: Counts): string {
  return `exact ${c.exact} (${percent(c.exact, c.total)}), refused ${c.refused} (${percent(c.refused, c.total)}), wrong ${c.wrong} (${percent(c.wrong, c.total)})`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const repo = path.resolve(import.meta.dirname, '../..');
  const edits = loadEdits(repo);
  console.log(`apply corpus: ${edits.length} edits up to ${CORPUS_TIP.slice(0, 8)}`);
  for (const v of VARIANTS) {
    const c = score(edits, v.context, v.edgeMarkers, v.widen);
    console.log(`  ${v.name}: ${describe(c)}`);
    for (const w of c.wrongEdits.slice(0, Number(process.env.SHOW ?? 0))) console.log(`    wrong: ${w.commit.slice(0, 8)} ${w.path}`);
  }
}
