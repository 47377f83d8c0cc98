/**
 * The engine home: human-readable files (JSON, JSONL, markdown with frontmatter), written atomically.
 * Every write goes through `writeAtomic`: temp file, fsync, rename, one queue per path, so a crash,
 * a kill or a full disk never leaves a half-written file.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

// Loaded on first use, not at engine start: start-up time is measured (bench/startup).
let yamlModule: typeof import('yaml') | undefined;
const YAML = () => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/** ~/.engine, the home when ENGINE_HOME is not set. */
export const defaultHome = () => path.join(os.homedir(), '.engine');
import { EngineError } from './errors.js';

/** Where everything lives inside a home (documented in the README). */
export const HOME_LAYOUT = {
  config: 'engine.config.json',
  settings: 'settings.json',
  mobileToken: 'mobile-token.json',
  permissions: 'permissions.json',
  notifications: 'notifications.json',
  mounts: 'mounts.json',
  mcp: 'mcp.json',
  secretsFile: 'secrets.enc.json',
  secretsIndex: 'secrets-index.json',
  workspace: 'workspace',
  runs: 'runs',
  history: 'history',
  chat: 'chat',
  agents: 'agents',
  memory: 'memory',
} as const;

export class Home {
  private readonly queues = new Map<string, Promise<unknown>>();
  private closed = false;

  constructor(readonly root: string) {}

  /** An absolute path inside the home. */
  path(...segments: string[]): string {
    return path.join(this.root, ...segments);
  }

  /** Creates the home and its fixed folders; throws one clear sentence when it is not writable. */
  async ensure(): Promise<void> {
    try {
      await mkdirp(this.root);
      for (const dir of [HOME_LAYOUT.workspace, HOME_LAYOUT.runs]) await fs.mkdir(this.path(dir), { recursive: true });
      const probe = this.path(`.write-probe-${process.pid}`);
      await fs.writeFile(probe, 'ok');
      await fs.rm(probe);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new EngineError(500, `engine home ${this.root} is not writable (${code}); set ENGINE_HOME to a folder you can write to`);
    }
  }

  /** Serializes work on one path so concurrent writers never interleave. */
  serialize<T>(file: string, work: () => Promise<T>): Promise<T> {
    const key = path.resolve(file);
    // After close no write starts: a late one (a reload or a timer that outlived the engine) would
    // land in a home its owner may be removing or copying.
    if (this.closed) return Promise.reject(new Error(`the engine has stopped; ${path.relative(this.root, key)} was not written`));
    const prev = this.queues.get(key) ?? Promise.resolve();
    const next = prev.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  /**
   * Resolves once every write queued in the home has settled, those queued while it waits included
   * (engine shutdown: a notification written for a run that just failed lands before the engine
   * says it is closed, so nothing writes into a home its owner then removes or copies).
   */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.all(this.queues.values());
  }

  /** Engine shutdown: the writes queued so far land, and none starts after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  /** Atomically replaces `file` (absolute, or relative to the home) with `data`. */
  writeAtomic(file: string, data: string | Uint8Array, mode?: number): Promise<void> {
    const target = path.isAbsolute(file) ? file : this.path(file);
    return this.serialize(target, () => writeFileAtomic(target, data, mode));
  }

  writeJson(file: string, value: unknown, mode?: number): Promise<void> {
    return this.writeAtomic(file, JSON.stringify(value, null, 2) + '\n', mode);
  }

  /** An engine file's bytes (a binary index), or undefined when it does not exist. */
  async readBytes(file: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(path.isAbsolute(file) ? file : this.path(file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Reads JSON, or `fallback` when the file does not exist. A corrupt file is an error, never silently replaced. */
  async readJson<T>(file: string, fallback: T): Promise<T> {
    const target = path.isAbsolute(file) ? file : this.path(file);
    let text: string;
    try {
      text = await fs.readFile(target, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new EngineError(500, `${target} is not valid JSON; fix or remove it by hand`);
    }
  }
}

/**
 * `mkdir -p` one level at a time. Node's recursive mkdir spins forever on some paths
 * (e.g. under /proc, where mkdir answers ENOENT), and a home path comes from a user.
 */
export async function mkdirp(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  let at = target;
  for (;;) {
    try {
      const st = await fs.stat(at);
      if (!st.isDirectory()) throw Object.assign(new Error(`${at} is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.unshift(at);
      const parent = path.dirname(at);
      if (parent === at) break;
      at = parent;
    }
  }
  for (const d of missing) {
    try {
      await fs.mkdir(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** temp file + fsync + rename; the temp file is removed on any failure, so the old file stays whole. */
export async function writeFileAtomic(target: string, data: string | Uint8Array, mode?: number): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(tmp, 'w', mode ?? 0o644);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (mode !== undefined) await fs.chmod(tmp, mode);
    await fs.rename(tmp, target);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new EngineError(507, `the disk is full; nothing was written to ${path.basename(target)}. Free some space and try again`);
    }
    throw err;
  }
}

/** A markdown document with YAML frontmatter, as Claude Code agents and Agent Skills use. */
export interface FrontmatterDocument {
  data: Record<string, unknown>;
  body: string;
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

export function parseFrontmatter(source: string): FrontmatterDocument {
  // Windows editors may start a file with a byte-order mark; it must not hide the frontmatter.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const match = FRONTMATTER.exec(text);
  if (!match) return { data: {}, body: text };
  const parsed = YAML().parse(match[1]) as unknown;
  const data = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return { data, body: text.slice(match[0].length) };
}

export function formatFrontmatter(data: Record<string, unknown>, body: string): string {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
  const yaml = Object.keys(clean).length ? YAML().stringify(clean).trimEnd() : '';
  return `---\n${yaml}\n---\n${body.startsWith('\n') ? body.slice(1) : body}`;
}
