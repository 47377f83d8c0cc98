/**
 * A loopback stand-in for the model hub that speaks its real HTTP API:
 * - `GET /api/models?search=&filter=&pipeline_tag=&sort=&limit=`: the search list;
 * - `GET /api/models/<org>/<repo>?blobs=true` (and `/revision/<rev>`): detail with `sha`, `gated`
 *   and `siblings[{rfilename, size, blobId, lfs: {sha256, size}}]`;
 * - `GET|HEAD /<org>/<repo>/resolve/<rev>/<file>`: the bytes, with `ETag`, `X-Repo-Commit`, and for
 *   LFS files `X-Linked-Etag` / `X-Linked-Size`, honouring `Range` and `If-Range` (206 or 200).
 * Test knobs: a byte rate limit, a file whose served bytes differ from its declared sha256, a token
 * a gated repo requires. Listens on 127.0.0.1, port 0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface FakeRepo { dir: string; commit?: string; gated?: boolean; downloads?: number; likes?: number; tags?: string[] }
interface FileEntry { name: string; bytes: Buffer; sha256: string; blobId: string; lfs: boolean }

export interface FakeHub {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers'] }[];
  /** Bytes per second for file bodies (0 = unlimited). */
  setRate(bytesPerSecond: number): void;
  /** Serve these bytes for `<repo>/<file>` while the detail still declares the original sha256. */
  corrupt(repo: string, file: string, bytes: Buffer): void;
  token: string;
  close(): Promise<void>;
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n), base) : [relative(base, join(dir, n)).split('\\').join('/')]));
}

export async function startFakeHub(repos: Record<string, FakeRepo>): Promise<FakeHub> {
  const files = new Map<string, FileEntry[]>();
  const commits = new Map<string, string>();
  for (const [id, r] of Object.entries(repos)) {
    const list = walk(r.dir).sort().map((name) => {
      const bytes = readFileSync(join(r.dir, name));
      return {
        name, bytes,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        blobId: createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex'),
        lfs: name.endsWith('.onnx') || name.endsWith('.onnx_data'),
      };
    });
    files.set(id, list);
    commits.set(id, r.commit ?? createHash('sha1').update(id + list.map((f) => f.blobId).join()).digest('hex'));
  }
  const corrupted = new Map<string, Buffer>();
  const requests: FakeHub['requests'] = [];
  let rate = 0;
  const token = 'hf_testtoken';
  const sockets = new Set<import('node:net').Socket>();

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const summary = (id: string) => ({
    _id: id, id, modelId: id, likes: repos[id].likes ?? 3, downloads: repos[id].downloads ?? 100, private: false,
    gated: repos[id].gated ? 'manual' : false, pipeline_tag: 'text-generation', library_name: 'transformers.js',
    tags: repos[id].tags ?? ['transformers.js', 'onnx', 'text-generation', 'llama'], createdAt: '2026-01-01T00:00:00.000Z',
  });
  const authorized = (req: IncomingMessage, id: string) => !repos[id].gated || req.headers.authorization === `Bearer ${token}`;

  async function sendBody(res: ServerResponse, body: Buffer) {
    if (!rate) return void res.end(body);
    const chunk = Math.max(1024, Math.floor(rate / 20));
    for (let i = 0; i < body.length; i += chunk) {
      if (res.destroyed) return;
      if (!res.write(body.subarray(i, i + chunk))) await new Promise((r) => res.once('drain', r));
      // The rate can change mid-body (a test lifting the limit): 0 sends the rest at once.
      if (rate) await new Promise((r) => setTimeout(r, (chunk / rate) * 1000));
    }
    res.end();
  }

  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://hub');
    const path = decodeURIComponent(url.pathname);
    if (path === '/api/models') {
      const q = (url.searchParams.get('search') ?? '').toLowerCase();
      const limit = Number(url.searchParams.get('limit') ?? 20);
      return json(res, 200, Object.keys(repos).filter((id) => id.toLowerCase().includes(q)).slice(0, limit).map(summary));
    }
    const detail = /^\/api\/models\/([^/]+\/[^/]+)(?:\/revision\/([^/]+))?$/.exec(path);
    if (detail) {
      const id = detail[1];
      if (!repos[id]) return json(res, 404, { error: 'Repository not found' });
      if (!authorized(req, id)) return json(res, 401, { error: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.` });
      const list = files.get(id)!;
      return json(res, 200, {
        ...summary(id), sha: commits.get(id), lastModified: '2026-01-02T00:00:00.000Z',
        siblings: list.map((f) => ({ rfilename: f.name, size: f.bytes.length, blobId: f.blobId, ...(f.lfs ? { lfs: { sha256: f.sha256, size: f.bytes.length, pointerSize: 134 } } : {}) })),
        usedStorage: list.reduce((n, f) => n + f.bytes.length, 0),
      });
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (resolve && (req.method === 'GET' || req.method === 'HEAD')) {
      const [, id, rev, name] = resolve;
      const f = files.get(id)?.find((e) => e.name === name);
      if (!f || (rev !== 'main' && rev !== commits.get(id))) return json(res, 404, { error: 'Entry not found' });
      if (!authorized(req, id)) return json(res, 401, { error: 'Access restricted.' });
      const body = corrupted.get(`${id}/${name}`) ?? f.bytes;
      const etag = `"${f.lfs ? f.sha256 : f.blobId}"`;
      const headers: Record<string, string | number> = { etag, 'x-repo-commit': commits.get(id)!, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
      if (f.lfs) Object.assign(headers, { 'x-linked-etag': etag, 'x-linked-size': f.bytes.length });
      const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
      const ifRange = req.headers['if-range'];
      if (range && (!ifRange || ifRange === etag)) {
        const start = Number(range[1]);
        const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
        if (start >= body.length) return res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        res.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${body.length}` });
        return req.method === 'HEAD' ? res.end() : void sendBody(res, body.subarray(start, end + 1));
      }
      res.writeHead(200, { ...headers, 'content-length': body.length });
      return req.method === 'HEAD' ? res.end() : void sendBody(res, body);
    }
    json(res, 404, { error: 'Not found' });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    token,
    setRate: (r) => { rate = r; },
    corrupt: (repo, file, bytes) => { corrupted.set(`${repo}/${file}`, bytes); },
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}
