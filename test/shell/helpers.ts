/** Shared by the shell tests: process liveness and a /term WebSocket client. */
import WebSocket from 'ws';
import { patience } from '../support/patience.js';

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves true once `pid` is gone (polled: a foreign process has no exit event to await). */
export async function waitGone(pid: number, ms = 30_000): Promise<boolean> {
  const end = Date.now() + patience(ms);
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

export interface Term {
  ws: WebSocket;
  output: () => string;
  /** Resolves with the first match of `re` in everything the terminal printed so far or later. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens `<wsBase>/term<query>`; a refused upgrade rejects with `{status, body}`. */
export function openTerm(wsBase: string, query: string, headers: Record<string, string> = {}): Promise<Term> {
  const ws = new WebSocket(wsBase + '/term' + query, { headers });
  let out = '';
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    out += String(data);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const term: Term = {
    ws,
    output: () => out,
    closed,
    waitFor(re, quietMs = 30_000) {
      const ms = patience(quietMs);
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${re} in terminal output within ${ms} ms: ${JSON.stringify(out.slice(-500))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(term));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused with ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
}
