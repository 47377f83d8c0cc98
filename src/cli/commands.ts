/** `engine status` and `engine stop`: they read the pid file of a home and never start anything. */
import { LIMITS } from '../kernel/limits.js';
import { engineCommand } from './invocation.js';
import { isAlive, isEngine, pidFilePath, readPidFile, removePidFile, type PidRecord } from './pidfile.js';

/** Exit code of status and stop when no engine runs for the home (as `systemctl status` does). */
export const EXIT_NOT_RUNNING = 3;

const say = (line: string) => process.stdout.write(line + '\n');

/** The live record, or undefined; a stale file is reported and removed. */
async function live(home: string): Promise<PidRecord | undefined> {
  const record = await readPidFile(home);
  if (!record) return undefined;
  if (isEngine(record.pid)) return record;
  const why = isAlive(record.pid) ? 'now belongs to another program' : 'is gone';
  say(`engine: removed a stale pid file (${pidFilePath(home)}: pid ${record.pid} ${why}; the engine did not stop cleanly)`);
  removePidFile(home, record.pid);
  return undefined;
}

export function uptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : m ? `${m}m ${s % 60}s` : `${s}s`;
}

/**
 * The home of the engine answering on `port` on this machine, when one does: `engine status` for a
 * home whose engine is not running says who holds the port instead of a bare "not running".
 */
async function homeServing(port: number): Promise<string | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/home`, { signal: AbortSignal.timeout(LIMITS.cliStatusTimeoutMs) });
    const body = (await res.json()) as { path?: unknown };
    return res.ok && typeof body.path === 'string' ? body.path : undefined;
  } catch {
    return undefined;
  }
}

export async function status(home: string, port?: number): Promise<number> {
  const r = await live(home);
  if (!r) {
    const other = port ? await homeServing(port) : undefined;
    if (other && other !== home) {
      say(`engine: not running for home ${home}; port ${port} is served by the engine for home ${other} (${engineCommand(`status --home ${other}`)})`);
    } else say(`engine: not running (home ${home})`);
    return EXIT_NOT_RUNNING;
  }
  let answering = false;
  try {
    const res = await fetch(`${r.url}/api/status`, { signal: AbortSignal.timeout(LIMITS.cliStatusTimeoutMs) });
    answering = res.ok;
  } catch {
    answering = false;
  }
  say(`engine: running (home ${home})`);
  say(r.pid === r.enginePid ? `  pid      ${r.pid} (engine process, no supervisor)` : `  pid      ${r.pid} (supervisor; engine process ${r.enginePid})`);
  say(`  address  ${r.url}/api${answering ? '' : ' (not answering right now)'}`);
  say(`  version  ${r.version}`);
  say(`  uptime   ${uptime(Date.now() - r.startedAt)}`);
  return 0;
}

export async function stop(home: string): Promise<number> {
  const r = await live(home);
  if (!r) {
    say(`engine: not running (home ${home})`);
    return EXIT_NOT_RUNNING;
  }
  process.kill(r.pid, 'SIGTERM');
  const waitMs = LIMITS.supervisorStopGraceMs + LIMITS.cliStopExtraWaitMs;
  const deadline = Date.now() + waitMs;
  while ((isAlive(r.pid) || isAlive(r.enginePid)) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
  if (isAlive(r.pid) || isAlive(r.enginePid)) {
    say(`engine: pid ${r.pid} did not stop within ${waitMs / 1000} s; kill -9 ${r.pid} ${r.enginePid} ends it`);
    return 1;
  }
  say(`engine: stopped (pid ${r.pid}, home ${home})`);
  return 0;
}
