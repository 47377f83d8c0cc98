/** Shared by the benches that start plain `node` processes (start-up, memory): ports and the bare Fastify script. */
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type http from 'node:http';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/** Writes the bare Fastify hello-world (GET /api/status on ENGINE_PORT) into `dir`; returns its path. */
export function writeFastifyScript(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'baseline-fastify.mjs');
  writeFileSync(
    file,
    `import Fastify from 'fastify';
const app = Fastify();
app.get('/api/status', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.ENGINE_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));\n`,
  );
  return file;
}

/** A fixture server's start: listen on a free loopback port, print `port <n>` (startFixture waits for it), stop with its parent. */
export function announce(server: http.Server): void {
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    process.stdout.write(`port ${typeof a === 'object' && a ? a.port : 0}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
}

/** A fixture process already listening: on SIGTERM or its parent's exit, `close` then exit; prints `port <n>` (startFixture waits for it). */
export function announcePort(port: number | string, close: () => Promise<unknown>): void {
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  process.stdout.write(`port ${port}\n`);
}
