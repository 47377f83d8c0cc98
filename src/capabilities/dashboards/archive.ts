/**
 * The source archive: every tool result a build's agent reads is kept under a per-run ref (t1, t2
 * ...) in `<home>/dashboard-data/<id>/sources/<runId>/<ref>.txt`, and the agent sees the ref above
 * the result so a widget can cite it. The document carries refs only; `dashboard_source` and
 * GET /api/dashboards/<id>/source/<ref> return the whole text.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isRunId } from '../../kernel/runs.js';
import type { AgentTools } from './types.js';

export interface SourceInfo {
  ref: string;
  tool: string;
  /** The call's arguments, clipped, so the next build's prompt can say what was read. */
  args: string;
  chars: number;
  preview: string;
}

const PREVIEW_CHARS = 160;

export class SourceArchive {
  private readonly index: SourceInfo[] = [];
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    readonly runId: string,
    /** The secret mask: an archive is a plain file in the home and is served over HTTP. */
    private readonly mask: (text: string) => string = (t) => t,
  ) {}

  /** Archives one result and answers its ref (assigned at once, written in order). */
  add(tool: string, args: unknown, result: string): string {
    const text = this.mask(result);
    const ref = `t${this.index.length + 1}`;
    const info: SourceInfo = { ref, tool, args: clip(this.mask(JSON.stringify(args) ?? ''), 200), chars: text.length, preview: clip(text.replace(/\s+/g, ' '), PREVIEW_CHARS) };
    this.index.push(info);
    const index = [...this.index];
    this.writes = this.writes
      .then(() => fs.mkdir(this.dir, { recursive: true }))
      .then(() => fs.writeFile(path.join(this.dir, `${ref}.txt`), text))
      .then(() => fs.writeFile(path.join(this.dir, 'index.json'), JSON.stringify(index)))
      .catch(() => undefined);
    return ref;
  }

  refs(): Set<string> {
    return new Set(this.index.map((s) => s.ref));
  }

  sources(): SourceInfo[] {
    return [...this.index];
  }

  flushed(): Promise<unknown> {
    return this.writes;
  }

  /**
   * The registry as the archiving agent sees it: each successful result of a data tool is archived
   * and labelled `[source tN]`; the dashboard's own tools are not.
   */
  wrap(tools: AgentTools, skip: ReadonlySet<string>): AgentTools {
    return {
      visible: (allowlist) => tools.visible(allowlist),
      runBatch: async (calls, ctx, options) => {
        const outcomes = await tools.runBatch(calls, ctx, options);
        return outcomes.map((o, i) => {
          if (o.isError || skip.has(o.name)) return o;
          const ref = this.add(o.name, calls[i].args, o.text);
          return { ...o, text: `[source ${ref}: cite it in a widget's sources]\n${o.text}` };
        });
      },
    };
  }
}

/** The archived text of one ref of one run, or undefined. */
export async function readSource(sourcesDir: string, runId: string, ref: string): Promise<string | undefined> {
  if (!isRunId(runId) || !/^t\d+$/.test(ref)) return undefined;
  return fs.readFile(path.join(sourcesDir, runId, `${ref}.txt`), 'utf8').catch(() => undefined);
}

/** What a run archived (its index), or an empty list. */
export async function readSourceIndex(sourcesDir: string, runId: string): Promise<SourceInfo[]> {
  if (!isRunId(runId)) return [];
  try {
    return JSON.parse(await fs.readFile(path.join(sourcesDir, runId, 'index.json'), 'utf8')) as SourceInfo[];
  } catch {
    return [];
  }
}

/** Removes the archives of runs nothing cites any more (the kept ones: the page's and live runs'). */
export async function pruneSources(sourcesDir: string, keep: ReadonlySet<string>): Promise<void> {
  const runs = await fs.readdir(sourcesDir).catch(() => [] as string[]);
  await Promise.all(runs.filter((r) => !keep.has(r)).map((r) => fs.rm(path.join(sourcesDir, r), { recursive: true, force: true })));
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
