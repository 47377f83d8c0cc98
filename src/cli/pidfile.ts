/**
 * `<home>/engine.pid`: what `engine status` and `engine stop` read. The supervisor (or the engine
 * itself under `serve --no-supervisor`) writes it atomically once the engine listens and removes it
 * on a clean stop; a file whose pid is gone is stale (a kill -9 or a power cut) and is reported and
 * removed.
 */
import { promises as fs, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../kernel/home.js';

export const PID_FILE = 'engine.pid';

export interface PidRecord {
  /** The process to stop: the supervisor, or the engine itself under `serve --no-supervisor` (then equal to enginePid). */
  pid: number;
  enginePid: number;
  url: string;
  bind: string;
  port: number;
  version: string;
  startedAt: number;
}

export const pidFilePath = (home: string) => path.join(home, PID_FILE);

export function writePidFile(home: string, record: PidRecord): Promise<void> {
  return writeFileAtomic(pidFilePath(home), JSON.stringify(record, null, 2) + '\n');
}

/** Removes the file if it still names `pid` (a newer supervisor's file is left alone). Synchronous: runs in exit paths. */
export function removePidFile(home: string, pid: number): void {
  try {
    if ((JSON.parse(readFileSync(pidFilePath(home), 'utf8')) as PidRecord).pid !== pid) return;
    rmSync(pidFilePath(home), { force: true });
  } catch {
    // Gone already, or unreadable: nothing to clean.
  }
}

export async function readPidFile(home: string): Promise<PidRecord | undefined> {
  let text: string;
  try {
    text = await fs.readFile(pidFilePath(home), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const r = JSON.parse(text) as PidRecord;
    return Number.isInteger(r.pid) && r.pid > 0 ? r : undefined;
  } catch {
    return undefined; // a torn file cannot happen (atomic writes); a hand-edited one is as good as none
  }
}

/**
 * Whether `pid` is still an engine supervisor and not another program that got the number after a
 * crash. Where /proc exists its command line must name the CLI; elsewhere liveness has to do.
 */
export function isEngine(pid: number): boolean {
  if (!isAlive(pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return /engine|main\.(?:js|ts)/.test(cmdline.replace(/\0/g, ' '));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
