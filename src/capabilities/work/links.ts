/**
 * What is attached to an item: runs whose `workItem` label is its key, chat sessions that name it,
 * and commits whose message names it (in every root that is a git repository).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { RunRecord } from '../../kernel/runs.js';
import type { WorkLinks } from './types.js';

export interface LinkDeps {
  /** The runs started for a work item label, oldest first (the run ledger's index by item: RunLedger.runsForWorkItem). */
  runsFor: (workItem: string) => readonly RunRecord[];
  /** The folder of chat session files (`<home>/chat`, one `<sessionId>.jsonl` each). */
  chatDir: () => string;
  /** The fence's roots: commits are searched in each one that is a repository. */
  roots: () => Array<{ name: string; path: string }>;
  /** Runs git (the git capability's runner, passed in by the composition root). */
  git: (args: string[], cwd: string) => Promise<{ code: number; stdout: Buffer }>;
}

const LINKS_PER_KIND = 200;

/** `ENG-1` but not `ENG-12` nor `XENG-1`: a key stands alone in text. */
export const keyPattern = (key: string) => new RegExp(`(?<![A-Za-z0-9-])${key.replace(/[-]/g, '\\-')}(?![0-9])`);

export async function findLinks(deps: LinkDeps, project: string, key: string): Promise<WorkLinks> {
  const re = keyPattern(key);
  // An item is labelled by its key or by <project>/<key>: the newest of both, newest first.
  const runs = [...deps.runsFor(key).slice(-LINKS_PER_KIND), ...deps.runsFor(`${project}/${key}`).slice(-LINKS_PER_KIND)]
    .sort((a, b) => b.startedAt - a.startedAt)
    .slice(0, LINKS_PER_KIND)
    .map((r) => ({ runId: r.runId, status: r.status, source: r.source, agent: r.agent, title: r.title, startedAt: r.startedAt }));
  const [chats, commits] = await Promise.all([chatsNaming(deps.chatDir(), re), commitsNaming(deps, key, re)]);
  return { runs, chats, commits };
}

async function chatsNaming(dir: string, re: RegExp): Promise<WorkLinks['chats']> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const out: WorkLinks['chats'] = [];
  for (const name of names.sort()) {
    const text = await fs.readFile(path.join(dir, name), 'utf8').catch(() => '');
    if (re.test(text)) out.push({ sessionId: name.slice(0, -'.jsonl'.length) });
    if (out.length >= LINKS_PER_KIND) break;
  }
  return out;
}

async function commitsNaming(deps: LinkDeps, key: string, re: RegExp): Promise<WorkLinks['commits']> {
  const out: WorkLinks['commits'] = [];
  for (const root of deps.roots()) {
    const r = await deps
      .git(['log', '--all', `--max-count=${LINKS_PER_KIND}`, '--fixed-strings', `--grep=${key}`, '--format=%H%x00%s%x00%B%x1e'], root.path)
      .catch(() => ({ code: -1, stdout: Buffer.alloc(0) }));
    if (r.code !== 0) continue; // not a repository, or no commits yet
    for (const rec of r.stdout.toString('utf8').split('\x1e')) {
      const [sha, subject, message] = rec.replace(/^\s+/, '').split('\0');
      if (sha && re.test(message ?? '')) out.push({ sha, subject: subject ?? '', root: root.name });
    }
  }
  return out;
}
