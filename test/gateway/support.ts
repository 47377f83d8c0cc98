/** A test engine with a scripted upstream behind the gateway, and the official OpenAI SDK as the client. */
import os from 'node:os';
import OpenAI from 'openai';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

export interface GatewayHarness {
  t: TestEngine;
  model: ModelServer;
  /** The gateway's port as GET /api/models reports it. */
  port: number;
  /** An OpenAI SDK client pointed at the gateway over loopback. */
  client(options?: { apiKey?: string; host?: string }): OpenAI;
  close(): Promise<void>;
}

export async function startGateway(type: 'openai-compatible' | 'anthropic' = 'openai-compatible'): Promise<GatewayHarness> {
  const model = await startModelServer();
  const t = await startTestEngine();
  const put = await t.api('PUT', '/api/config', {
    providers: [{ type, name: 'scripted', baseUrl: model.baseUrl, model: 'upstream-model', newKey: 'sk-upstream-secret-4711' }],
    defaultProvider: 'scripted',
  });
  if (put.status !== 200) throw new Error(`config: ${JSON.stringify(put.body)}`);
  const status = await t.api('GET', '/api/models');
  const port = status.body.gateway.port as number;
  return {
    t,
    model,
    port,
    client: ({ apiKey = 'unused', host = '127.0.0.1' } = {}) => new OpenAI({ baseURL: `http://${host}:${port}/v1`, apiKey, maxRetries: 0, timeout: 10_000 }),
    async close() {
      await t.close();
      await model.close();
    },
  };
}

/** The machine's own first non-loopback IPv4 address (a caller that is not loopback, without leaving the machine). */
export function ownAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}
