/**
 * The /term socket: a real pty (node-pty) per terminal id, for the terminal panel.
 *
 * Protocol (documented in docs/shell.md):
 * - Upgrade `ws://127.0.0.1:<port>/term?id=<id>&cols=<n>&rows=<n>`. `id` is 1-64 of [A-Za-z0-9_-];
 *   cols 1-1000 and rows 1-500 (whole numbers, default 80x24). Bad values: 400 on the upgrade.
 *   At most LIMITS.termSessions live terminals: a new id beyond that is 409.
 *   A loopback peer is required whatever ENGINE_BIND says (the guard checks it, and this handler
 *   checks it again); the mobile token never opens it.
 * - Server -> client: text frames of raw terminal output. A socket attaching to a live id first gets
 *   a replay of the last output (up to LIMITS.termScrollbackChars), then the live stream. When the
 *   shell exits every socket is closed with code 4000 and reason `shell exited (code N)`.
 * - Client -> server: a binary frame is raw input. A text frame that is a JSON object
 *   `{"type":"resize","cols":n,"rows":n}` resizes, `{"type":"input","data":"..."}` is input; any
 *   other text frame is raw input (so a plain client can just send keystrokes). A bad resize closes
 *   that socket with 1008 and a reason.
 * - Every socket on one id shares the pty; the latest size wins. When the last socket closes, the
 *   pty lives on for LIMITS.termReattachGraceMs (a panel reload or a tab switch closes and reopens the
 *   socket; the grace lets it come back to the same shell), then the shell's whole session (every
 *   process group it started, background jobs included) is killed: SIGHUP, then SIGKILL.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type * as Pty from 'node-pty';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { lazyRequire } from '../../kernel/lazy-require.js';
import { LIMITS } from '../../kernel/limits.js';
import { isLoopback } from '../guard.js';
import { refuse, type SocketHandler } from './upgrade.js';

/** node-pty (a native addon, ~3 MB resident) loads with the first terminal, not at start (bench/memory). */
const loadPty = lazyRequire<typeof Pty>('node-pty');

export interface TermDeps {
  /** Real path of the workspace root: where every terminal starts. */
  cwd: () => string;
  /** The scrubbed shell environment (the same one run_shell gets). */
  env: () => Record<string, string>;
  /** How long a terminal outlives its last socket (default LIMITS.termReattachGraceMs). */
  graceMs?: number;
  /** Live terminals at once (default LIMITS.termSessions). */
  maxSessions?: number;
}

interface Session {
  id: string;
  pty: Pty.IPty;
  clients: Set<WebSocket>;
  scrollback: string;
  graceTimer?: NodeJS.Timeout;
  exited: boolean;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const CLOSE_EXITED = 4000;
const CLOSE_POLICY = 1008;

export function termSocket(deps: TermDeps): SocketHandler & { sessions: () => string[] } {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sessions = new Map<string, Session>();
  const graceMs = deps.graceMs ?? LIMITS.termReattachGraceMs;
  const maxSessions = deps.maxSessions ?? LIMITS.termSessions;

  function start(id: string, cols: number, rows: number): Session {
    const shell = loginShell();
    const p = loadPty().spawn(shell, ['-l'], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: deps.cwd(),
      env: { ...deps.env(), TERM: 'xterm-256color', COLORTERM: 'truecolor' },
    });
    const session: Session = { id, pty: p, clients: new Set(), scrollback: '', exited: false };
    p.onData((data) => {
      session.scrollback = (session.scrollback + data).slice(-LIMITS.termScrollbackChars);
      for (const ws of session.clients) send(session, ws, data);
    });
    p.onExit(({ exitCode }) => {
      session.exited = true;
      clearTimeout(session.graceTimer);
      if (sessions.get(id) === session) sessions.delete(id);
      for (const ws of session.clients) ws.close(CLOSE_EXITED, `shell exited (code ${exitCode})`);
      session.clients.clear();
      void killSession(p.pid);
    });
    sessions.set(id, session);
    return session;
  }

  function send(session: Session, ws: WebSocket, data: string) {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > LIMITS.socketBufferBytes) {
      // A client this far behind would stall nobody but itself; drop it.
      session.clients.delete(ws);
      ws.terminate();
      return;
    }
    ws.send(data);
  }

  function detach(session: Session, ws: WebSocket) {
    if (!session.clients.delete(ws) || session.clients.size > 0 || session.exited) return;
    clearTimeout(session.graceTimer);
    session.graceTimer = setTimeout(() => {
      if (session.clients.size === 0) end(session);
    }, graceMs);
  }

  function end(session: Session) {
    if (sessions.get(session.id) === session) sessions.delete(session.id);
    clearTimeout(session.graceTimer);
    const pid = session.pty.pid;
    void killSession(pid, 'SIGHUP');
    try {
      session.pty.kill('SIGHUP');
    } catch {
      // already gone
    }
    setTimeout(() => void killSession(pid, 'SIGKILL'), LIMITS.shellKillGraceMs).unref();
  }

  function onMessage(session: Session, ws: WebSocket, data: RawData, isBinary: boolean) {
    if (session.exited) return;
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) return session.pty.write(bytes.toString('utf8'));
    const text = bytes.toString('utf8');
    const control = parseControl(text);
    if (!control) return session.pty.write(text);
    if (control.type === 'input') return session.pty.write(control.data);
    const size = checkSize(control.cols, control.rows);
    if (typeof size === 'string') return ws.close(CLOSE_POLICY, size);
    session.pty.resize(size.cols, size.rows);
  }

  return {
    path: '/term',
    handle(req: IncomingMessage, socket, head) {
      // The guard requires a loopback peer for /term already; this socket never trusts that alone.
      if (!isLoopback(req.socket.remoteAddress)) return refuse(socket, 403, 'forbidden: the terminal needs a loopback peer');
      const params = new URL(req.url ?? '/', 'http://local').searchParams;
      const id = params.get('id') ?? '';
      if (!ID.test(id)) return refuse(socket, 400, 'the terminal id must be 1-64 characters of letters, digits, "-" or "_": /term?id=<id>&cols=<n>&rows=<n>');
      const size = checkSize(params.get('cols') ?? 80, params.get('rows') ?? 24);
      if (typeof size === 'string') return refuse(socket, 400, size);
      const live = sessions.get(id);
      if ((!live || live.exited) && sessions.size >= maxSessions) {
        return refuse(socket, 409, `${sessions.size} terminals are open, the most the engine keeps; close one or reattach to a live id (${[...sessions.keys()].join(', ')})`);
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        let session = sessions.get(id);
        let replay = '';
        try {
          if (session && !session.exited) {
            clearTimeout(session.graceTimer);
            replay = session.scrollback;
            session.pty.resize(size.cols, size.rows);
          } else {
            session = start(id, size.cols, size.rows);
          }
        } catch (err) {
          ws.close(1011, `could not start a terminal: ${(err as Error).message}`.slice(0, 120));
          return;
        }
        const s = session;
        s.clients.add(ws);
        if (replay) send(s, ws, replay);
        ws.on('message', (data, isBinary) => onMessage(s, ws, data, isBinary));
        ws.on('close', () => detach(s, ws));
        ws.on('error', () => {
          ws.terminate();
          detach(s, ws);
        });
      });
    },
    close() {
      for (const session of [...sessions.values()]) {
        for (const ws of session.clients) ws.terminate();
        session.clients.clear();
        end(session);
      }
      wss.close();
    },
    sessions: () => [...sessions.keys()],
  };
}

type Control = { type: 'input'; data: string } | { type: 'resize'; cols: unknown; rows: unknown };

function parseControl(text: string): Control | undefined {
  if (!text.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.type === 'input' && typeof v.data === 'string') return { type: 'input', data: v.data };
  if (v.type === 'resize') return { type: 'resize', cols: v.cols, rows: v.rows };
  return undefined;
}

function checkSize(colsIn: unknown, rowsIn: unknown): { cols: number; rows: number } | string {
  const cols = Number(colsIn);
  const rows = Number(rowsIn);
  const ok = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max && String(colsIn).trim() !== '' && String(rowsIn).trim() !== '';
  if (!ok(cols, LIMITS.termMaxCols) || !ok(rows, LIMITS.termMaxRows)) {
    return `cols must be a whole number 1-${LIMITS.termMaxCols} and rows 1-${LIMITS.termMaxRows} (got cols=${String(colsIn).slice(0, 20)}, rows=${String(rowsIn).slice(0, 20)})`;
  }
  return { cols, rows };
}

/** The user's login shell when it is a real one, else bash. */
function loginShell(): string {
  const sh = process.env.SHELL;
  if (sh && sh.startsWith('/') && !/(nologin|false)$/.test(sh) && existsSync(sh)) return sh;
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/**
 * Signals every process of the shell's session: the pty's shell is a session leader, and with job
 * control its background jobs sit in process groups of their own, so signalling one group is not enough.
 */
async function killSession(sid: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const pids = new Set<number>([sid]);
  if (process.platform === 'linux') {
    const entries = await readdir('/proc').catch(() => [] as string[]);
    await Promise.all(
      entries
        .filter((e) => /^\d+$/.test(e))
        .map(async (e) => {
          const stat = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => '');
          // Fields after the parenthesised command: state ppid pgrp session ...
          const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          if (Number(rest[3]) === sid) pids.add(Number(e));
        }),
    );
  }
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // gone already, or not a group leader
      }
    }
  }
}
