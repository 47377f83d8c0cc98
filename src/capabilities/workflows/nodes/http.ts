/**
 * `http`: one HTTP request through the URL floor (no loopback, private or local hosts) unless a
 * person allows private addresses for this node (`config.allowPrivate`, refused from a model).
 * Headers may hold `{{secret:name}}`; secret values never reach an event or the log.
 */
import type { NodeType } from '../types.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const httpNode: NodeType = {
  type: 'http',
  description:
    'Sends one HTTP request: config.method (default GET), config.url, config.headers (values may hold {{secret:name}}), config.body (a template; an object is sent as JSON). ' +
    'The engine never fetches loopback, private and .local hosts unless a person set config.allowPrivate on this node (a model cannot). A status >= 400 fails the node unless config.allowFailure is true. ' +
    'Output: {status, headers, body} (a JSON answer parsed).',
  config: {
    type: 'object',
    properties: {
      method: { enum: [...METHODS, ...METHODS.map((m) => m.toLowerCase())] },
      url: { type: 'string', minLength: 1 },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body: {},
      allowPrivate: { type: 'boolean' },
      allowFailure: { type: 'boolean' },
      timeoutMs: { type: 'integer', minimum: 1, maximum: 600_000 },
    },
    required: ['url'],
    additionalProperties: false,
  },
  example: { id: 'post', type: 'http', config: { method: 'POST', url: 'https://api.example.com/items', headers: { authorization: 'Bearer {{secret:example-token}}' }, body: { name: '{{trigger.name}}' } } },
  secretFields: ['headers'],
  lossy: (config) => !['GET', 'HEAD'].includes(String(config.method ?? 'GET').toUpperCase()),
  async run(config, ctx) {
    if (!ctx.services.http) throw new Error('HTTP requests are not available in this engine');
    const headers = (await ctx.renderSecrets(config.headers ?? {})) as Record<string, string>;
    const rendered = config.body === undefined ? undefined : ctx.render(config.body);
    let body: string | undefined;
    if (rendered !== undefined) {
      if (typeof rendered === 'string') body = rendered;
      else {
        body = JSON.stringify(rendered);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      }
    }
    const res = await ctx.services.http({
      method: String(config.method ?? 'GET').toUpperCase(),
      url: ctx.text(config.url),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === undefined || v === null ? '' : String(v)])),
      body,
      allowPrivate: config.allowPrivate === true,
      signal: ctx.signal,
      timeoutMs: config.timeoutMs as number | undefined,
    });
    if (res.status >= 400 && config.allowFailure !== true) {
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      throw new Error(`${String(config.method ?? 'GET').toUpperCase()} ${ctx.text(config.url)} answered ${res.status}: ${text.slice(0, 300)}`);
    }
    return { output: res };
  },
};
