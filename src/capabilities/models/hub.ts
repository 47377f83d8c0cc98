/**
 * The model hub's public HTTP API, at HF_ENDPOINT when set (the variable the hub's own tools honour),
 * else https://huggingface.co. An `hf.token` secret is sent as a bearer token when present (gated repos).
 */
import { EngineError } from '../../kernel/errors.js';
import { dtypesIn, checkRepo } from './types.js';

export const HF_TOKEN_SECRET = 'hf.token';

export interface HubSibling { rfilename: string; size?: number; blobId?: string; lfs?: { sha256: string; size: number } }
export interface HubDetail { id: string; sha: string; gated: false | string; private?: boolean; downloads?: number; likes?: number; tags?: string[]; pipeline_tag?: string; siblings: HubSibling[] }

export interface HubClient {
  endpoint(): string;
  search(q: string, limit: number): Promise<unknown[]>;
  detail(repo: string, signal?: AbortSignal): Promise<HubDetail>;
  fileUrl(repo: string, commit: string, file: string): string;
  headers(): Promise<Record<string, string>>;
}

export function createHubClient(token: () => Promise<string | undefined>): HubClient {
  const endpoint = () => (process.env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '');
  const headers = async (): Promise<Record<string, string>> => {
    const t = await token().catch(() => undefined);
    return t ? { authorization: `Bearer ${t}` } : {};
  };
  async function getJson(url: string, what: string, signal?: AbortSignal): Promise<any> {
    let res: Response;
    try {
      res = await fetch(url, { headers: await headers(), signal: signal ?? AbortSignal.timeout(30_000) });
    } catch (err) {
      throw new EngineError(502, `the model hub at ${endpoint()} could not be reached (${(err as Error).message}); check the network or HF_ENDPOINT`);
    }
    if (res.status === 401 || res.status === 403) throw new EngineError(403, `${what} is gated or private: accept its terms on the hub and store a token as the secret "${HF_TOKEN_SECRET}"`);
    if (res.status === 404) throw new EngineError(404, `${what} was not found on the model hub`);
    if (!res.ok) throw new EngineError(502, `the model hub answered ${res.status} for ${what}`);
    return res.json();
  }
  return {
    endpoint,
    headers,
    async search(q, limit) {
      const u = new URL(`${endpoint()}/api/models`);
      u.searchParams.set('search', q);
      u.searchParams.set('filter', 'onnx');
      u.searchParams.set('pipeline_tag', 'text-generation');
      u.searchParams.set('sort', 'downloads');
      u.searchParams.set('limit', String(limit));
      const list = await getJson(u.toString(), 'the search');
      if (!Array.isArray(list)) throw new EngineError(502, 'the model hub answered a search with something other than a list');
      return list;
    },
    async detail(repo, signal) {
      checkRepo(repo);
      const d = await getJson(`${endpoint()}/api/models/${repo}?blobs=true`, repo, signal);
      if (typeof d?.sha !== 'string' || !/^[0-9a-f]{7,64}$/i.test(d.sha) || !Array.isArray(d.siblings)) throw new EngineError(502, `the model hub's detail for ${repo} has no commit or file list`);
      return d as HubDetail;
    },
    fileUrl: (repo, commit, file) => `${endpoint()}/${repo}/resolve/${commit}/${file.split('/').map(encodeURIComponent).join('/')}`,
  };
}

/** The shape the engine answers for a search hit. */
export function searchHit(m: any) {
  return {
    repo: String(m.id ?? m.modelId ?? ''),
    downloads: Number(m.downloads ?? 0),
    likes: Number(m.likes ?? 0),
    gated: Boolean(m.gated),
    pipeline: m.pipeline_tag ?? null,
    tags: Array.isArray(m.tags) ? m.tags.map(String) : [],
  };
}

/** What the hub's detail tells about a repo: files with sizes, dtypes, gated or not. */
export function describeDetail(d: HubDetail) {
  const files = d.siblings.map((s) => ({ name: s.rfilename, size: s.lfs?.size ?? s.size ?? 0, ...(s.lfs ? { sha256: s.lfs.sha256 } : {}) }));
  return { repo: d.id, commit: d.sha, gated: Boolean(d.gated), files, dtypes: dtypesIn(files.map((f) => f.name)) };
}
