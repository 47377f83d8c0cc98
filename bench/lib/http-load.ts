/**
 * A small HTTP/1.1 keep-alive load generator on raw sockets (no pipelining): each connection sends
 * a request, reads the whole response (Content-Length), sends the next. Cheap enough on the client
 * side that the server, not the client, is what gets measured.
 */
import net from 'node:net';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
}

export interface LoadOptions {
  port: number;
  /** The request path; with `paths`, connection i uses paths[i % paths.length] instead. */
  path: string;
  paths?: string[];
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** GET unless set; a `body` is sent as JSON with its Content-Length. */
  method?: string;
  body?: string;
}

export async function httpLoad(opts: LoadOptions): Promise<LoadResult> {
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers = { ...opts.headers, ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}) };
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  // Each connection's request is built once: the client's per-request cost is one write of it.
  const requestFor = (p: string) => Buffer.concat([Buffer.from(`${opts.method ?? 'GET'} ${p} HTTP/1.1\r\nHost: 127.0.0.1:${opts.port}\r\n${extra}\r\n`), body ?? Buffer.alloc(0)]);
  let requests = 0;
  let errors = 0;
  let running = true;
  const started = performance.now();
  const conns = Array.from({ length: opts.connections }, (_, i) =>
    new Promise<void>((resolve) => {
      const request = requestFor(opts.paths ? opts.paths[i % opts.paths.length] : opts.path);
      const socket = net.connect(opts.port, '127.0.0.1');
      socket.setNoDelay(true);
      let buf: Buffer = Buffer.alloc(0);
      socket.on('connect', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        for (;;) {
          const headEnd = buf.indexOf('\r\n\r\n');
          if (headEnd === -1) return;
          const head = buf.subarray(0, headEnd).toString('latin1');
          const m = /content-length:\s*(\d+)/i.exec(head);
          const len = m ? Number(m[1]) : 0;
          if (buf.length < headEnd + 4 + len) return;
          if (!head.startsWith('HTTP/1.1 200')) errors++;
          else requests++;
          buf = buf.subarray(headEnd + 4 + len);
          if (!running) {
            socket.end();
            return;
          }
          socket.write(request);
        }
      });
      socket.on('error', () => {
        errors++;
        resolve();
      });
      socket.on('close', () => resolve());
    }),
  );
  await new Promise((r) => setTimeout(r, opts.seconds * 1000));
  running = false;
  const seconds = (performance.now() - started) / 1000;
  const counted = requests;
  await Promise.race([Promise.all(conns), new Promise((r) => setTimeout(r, 2000))]);
  return { requests: counted, errors, seconds, rps: counted / seconds };
}

/**
 * The same load generator in a process of its own (an external client, like wrk: its CPU is not
 * the measured server's, and it does not share an event loop with anything measured).
 */
export async function startLoadGenerator(): Promise<{ pid: number; run(opts: LoadOptions): Promise<LoadResult>; stop(): Promise<void> }> {
  const { fork } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const child = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the load generator exited with ${code}`)));
  });
  return {
    pid: child.pid!,
    run: (opts) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as LoadResult));
        child.send(opts);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
