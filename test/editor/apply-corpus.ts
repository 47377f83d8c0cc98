/**
 * The apply corpus: real edits from this repository's own git history. For each commit that
 * modified a source file, the new side's hunks (three lines of context, as `git diff` makes them)
 * become a lazy snippet with a marker line in every gap and at each edge the hunks do not reach,
 * to be spliced onto the old side and compared with the new side.
 *   npx tsx test/editor/apply-corpus.ts [maxCommits]   prints the counts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { splice } from '../../src/capabilities/editor/splice.js';

export interface CorpusCase {
  commit: string;
  path: string;
  before: string;
  after: string;
  snippet: string;
}

const MARKER = '// ... existing code ...';

export function buildCorpus(repo: string, maxCommits = 400): CorpusCase[] {
  const log = execFileSync('git', ['-C', repo, 'log', `-${maxCommits}`, '--no-merges', '--format=commit %H', '-p', '-U3', '--no-color', '--no-renames', '--full-index', '--diff-filter=M', '--', ...(process.env.CORPUS_PATHS ?? 'src/*.ts').split(' ')], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const pending: Array<{ commit: string; path: string; oldBlob: string; newBlob: string; hunks: Hunk[] }> = [];
  let commit = '';
  let current: (typeof pending)[number] | undefined;
  let hunk: Hunk | undefined;
  for (const line of log.split('\n')) {
    if (line.startsWith('commit ')) {
      commit = line.slice(7);
      current = undefined;
    } else if (line.startsWith('diff --git ')) {
      current = { commit, path: line.slice(line.indexOf(' b/') + 3), oldBlob: '', newBlob: '', hunks: [] };
      pending.push(current);
      hunk = undefined;
    } else if (current && line.startsWith('index ')) {
      const [oldBlob, newBlob] = line.slice(6).split(' ')[0].split('..');
      current.oldBlob = oldBlob;
      current.newBlob = newBlob;
    } else if (current && line.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      hunk = { newStart: Number(m[3]), newLength: m[4] === undefined ? 1 : Number(m[4]), lines: [] };
      current.hunks.push(hunk);
    } else if (hunk && (line.startsWith(' ') || line.startsWith('+'))) hunk.lines.push(line.slice(1));
  }
  const blobs = readBlobs(repo, pending.flatMap((p) => [p.oldBlob, p.newBlob]));
  const cases: CorpusCase[] = [];
  for (const p of pending) {
    const before = blobs.get(p.oldBlob);
    const after = blobs.get(p.newBlob);
    if (before === undefined || after === undefined || !p.hunks.length) continue;
    cases.push({ commit: p.commit, path: p.path, before, after, snippet: snippetOf(p.hunks, after) });
  }
  return cases;
}

interface Hunk {
  newStart: number;
  newLength: number;
  lines: string[];
}

function snippetOf(hunks: Hunk[], after: string): string {
  const total = after.split('\n').length - (after.endsWith('\n') ? 1 : 0);
  const out: string[] = [];
  hunks.forEach((h, i) => {
    if (i > 0 || h.newStart > 1) out.push(MARKER);
    out.push(...h.lines);
  });
  const last = hunks[hunks.length - 1];
  if (last.newStart + last.newLength - 1 < total) out.push(MARKER);
  return out.join('\n') + '\n';
}

function readBlobs(repo: string, ids: string[]): Map<string, string> {
  const unique = [...new Set(ids.filter(Boolean))];
  const res = spawnSync('git', ['-C', repo, 'cat-file', '--batch'], { input: unique.join('\n') + '\n', maxBuffer: 1024 * 1024 * 1024 });
  const buf = res.stdout;
  const blobs = new Map<string, string>();
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString();
    const [id, type, size] = header.split(' ');
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

export interface CorpusCounts {
  total: number;
  exact: number;
  refused: number;
  wrong: number;
  wrongCases: CorpusCase[];
  /** Snippets whose edge markers were dropped (a model that forgot them): merged anyway and wrong. */
  forgotten: number;
  forgottenDamaged: number;
}

export function scoreCorpus(cases: CorpusCase[]): CorpusCounts {
  const counts: CorpusCounts = { total: cases.length, exact: 0, refused: 0, wrong: 0, wrongCases: [], forgotten: 0, forgottenDamaged: 0 };
  for (const c of cases) {
    const lines = c.snippet.split('\n');
    const forgot = lines.filter((l, i) => !(l === MARKER && (i === 0 || i === lines.length - 2))).join('\n');
    if (forgot !== c.snippet) {
      counts.forgotten++;
      const r = splice(c.before, forgot);
      if (r.merged !== null && r.merged !== c.after) counts.forgottenDamaged++;
    }
    const result = splice(c.before, c.snippet);
    if (result.merged === null) counts.refused++;
    else if (result.merged === c.after) counts.exact++;
    else {
      counts.wrong++;
      counts.wrongCases.push(c);
    }
  }
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cases = buildCorpus(process.cwd(), Number(process.argv[2] ?? 400));
  const c = scoreCorpus(cases);
  const pct = (n: number) => ((100 * n) / Math.max(1, c.total)).toFixed(1) + ' %';
  console.log(`apply corpus: ${c.total} edits, exact ${c.exact} (${pct(c.exact)}), refused ${c.refused} (${pct(c.refused)}), wrong ${c.wrong} (${pct(c.wrong)}); with edge markers dropped: ${c.forgottenDamaged} of ${c.forgotten} damaged`);
  for (const w of c.wrongCases.slice(0, Number(process.env.SHOW ?? 0))) console.log(`wrong: ${w.commit.slice(0, 8)} ${w.path}`);
}
