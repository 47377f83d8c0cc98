/**
 * A deterministic OpenAI-compatible embeddings server on loopback (`POST /v1/embeddings`): each
 * text becomes a bag of concepts (its words, camelCase split, mapped through a small synonym
 * table so a paraphrase lands near the code it describes), hashed into 256 dimensions and
 * normalised. Every request and input is counted; `fail(n)` answers the next n requests with 503.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const DIMS = 256;

const SYNONYMS: Record<string, string> = {
  again: 'retry', retries: 'retry', retrying: 'retry', reattempt: 'retry', repeat: 'retry',
  send: 'upload', sending: 'upload', sent: 'upload', uploads: 'upload', transfer: 'upload', push: 'upload',
  broke: 'fail', broken: 'fail', failed: 'fail', failing: 'fail', failure: 'fail', error: 'fail', errors: 'fail',
  files: 'file', document: 'file', documents: 'file',
  wait: 'delay', waiting: 'delay', backoff: 'delay', pause: 'delay', sleep: 'delay',
};

export function concepts(text: string): string[] {
  const words = text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z]+/g) ?? [];
  return words.map((w) => (Object.hasOwn(SYNONYMS, w) ? SYNONYMS[w] : w));
}

export function vectorOf(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const c of concepts(text)) v[createHash('sha1').update(c).digest().readUInt32LE(0) % DIMS] += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export interface FakeEmbeddings {
  baseUrl: string;
  requests: number;
  inputs: string[];
  headers: http.IncomingHttpHeaders[];
  fail(n: number): void;
  close(): Promise<void>;
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  let failing = 0;
  const state: FakeEmbeddings = {
    baseUrl: '',
    requests: 0,
    inputs: [],
    headers: [],
    fail: (n) => void (failing = n),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404).end('{"error":{"message":"no such route"}}');
        return;
      }
      state.requests++;
      state.headers.push(req.headers);
      if (failing > 0) {
        failing--;
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"error":{"message":"overloaded"}}');
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string[] | string; model: string };
      const list = Array.isArray(input) ? input : [input];
      state.inputs.push(...list);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model, data: list.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
