/**
 * web_fetch and web_search: thin model-facing adapters over the web service.
 */
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type AnyTool } from '../../tools/types.js';
import type { WebService } from './service.js';

export function webTools(web: WebService): AnyTool[] {
  const webFetch = defineTool<{ url: string; offset?: number }>({
    name: 'web_fetch',
    group: 'web',
    readOnly: true,
    description:
      `Fetches a public http(s) page and returns its readable text (HTML stripped; plain text passed through; binary refused), ` +
      `${LIMITS.webFetchChars} characters per call after a header naming the range; continue with the offset the header gives. ` +
      `${LIMITS.webFetchTimeoutMs / 1000} s timeout. Local, private and single-label hosts are never fetched.`,
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Absolute http(s) URL.' },
        offset: { type: 'integer', minimum: 0, description: 'Character offset to start from (from the previous header).' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    permission: 'other',
    run: (args, ctx) => web.fetchText({ url: args.url, offset: args.offset, signal: ctx.signal, emit: ctx.emit }),
  });

  const webSearch = defineTool<{ query: string }>({
    name: 'web_search',
    group: 'web',
    readOnly: true,
    description: `Searches the web (keyless, best effort) and returns up to ${LIMITS.webSearchResults} results as title / URL pairs. Read a result with web_fetch.`,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for.' } },
      required: ['query'],
      additionalProperties: false,
    },
    permission: 'other',
    run: async (args, ctx) => (await web.search({ query: args.query, signal: ctx.signal })).text,
  });

  return [webFetch, webSearch];
}
