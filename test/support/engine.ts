/**
 * Starts a real engine in-process on port 0 with a temp home, and talks to it over real HTTP.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine, type Engine, type EngineOptions } from '../../src/engine.js';

export interface TestEngine {
  engine: Engine;
  url: string;
  home: string;
  /** Operational log lines the engine wrote (never secrets). */
  logs: string[];
  /** JSON request helper: returns status and parsed body. */
  api<T = any>(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export async function tempDir(prefix = 'engine-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function startTestEngine(options: Partial<EngineOptions> & { keepHome?: boolean } = {}): Promise<TestEngine> {
  const home = options.home ?? (await tempDir());
  const logs: string[] = [];
  // The file backend keeps test secrets out of the developer's real keychain.
  // Shells read their environment under a clean HOME: no developer's profile or rc files run in tests.
  const shellLoginHome = path.join(os.tmpdir(), 'engine-test-clean-home');
  await mkdir(shellLoginHome, { recursive: true });
  const engine = await startEngine({ port: 0, gatewayPort: 0, log: (l) => logs.push(l), secretsBackend: 'file', shellLoginHome, ...options, home });
  const url = engine.url;
  const api: TestEngine['api'] = async (method, route, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body);
      if (!(typeof body === 'string' || body instanceof Uint8Array)) (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await fetch(url + route, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON answers (raw files, exports) come back as text.
    }
    return { status: res.status, body: parsed as any };
  };
  return {
    engine,
    url,
    home,
    logs,
    api,
    async close() {
      await engine.close();
      if (!options.keepHome && !options.home) await removeHome(home);
    },
  };
}

/**
 * Removes a closed engine's home. The engine writes nothing into it after close (Home.close); if an
 * entry appears while the home is being removed all the same, the entries left are named on stderr,
 * so a writer that outlived the engine shows in the log, and the removal is tried again.
 */
async function removeHome(home: string): Promise<void> {
  try {
    await rm(home, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
    const left = await readdir(home, { recursive: true }).catch(() => []);
    console.error(`# a write landed in ${home} after the engine closed: ${left.join(', ')}`);
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
  }
}
