/** The reference MCP servers from npm, and helpers to wait on the pool, call a tool and find a server's process. */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';

const require = createRequire(import.meta.url);
const pkgDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

export const EVERYTHING = path.join(pkgDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
export const FILESYSTEM = path.join(pkgDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');

/** A stdio entry that runs a reference server with this Node. */
export const stdio = (script: string, ...args: string[]) => ({ command: process.execPath, args: [script, ...args] });

/** Polls GET /api/mcp until `test` holds (bounded). */
export function waitForMcp(t: TestEngine, test: (view: any) => boolean, what: string, timeoutMs = 30_000): Promise<any> {
  return until(
    what,
    async () => {
      const view = (await t.api('GET', '/api/mcp')).body;
      if (!test(view)) throw new Error(`the view is ${JSON.stringify(view?.status)}`);
      return view;
    },
    timeoutMs,
  );
}

export const connected = (name: string) => (v: any) => v.status?.[name]?.state === 'connected' && v.status[name].tools.length > 0;

/** Calls a registered tool as an unattended run would, without events. */
export function callTool(t: TestEngine, name: string, args: Record<string, unknown> = {}) {
  return t.engine.tools.call({ callId: `c-${Math.random()}`, name, args }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
}

/** Pids of this process's descendants whose command line contains `needle`. */
export function serverPids(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmd.includes(needle)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}
