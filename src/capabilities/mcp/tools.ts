/**
 * An MCP server's tools as registry tools: `<server>_<tool>`, source = the server, the server's own
 * JSON Schema, permission class `unknown` (prompt attended, allow unattended; rules key on the full
 * name). Names are made valid for model APIs (64 characters of [A-Za-z0-9_-]); a name that would
 * collide with a registered tool is left out with a status warning, never overwritten.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type AnyTool, type ToolResult } from '../../tools/types.js';

const MAX_NAME = 64;

/** The registry name of a server's tool, or undefined when no valid name fits. */
export function registryName(server: string, tool: string): string | undefined {
  const clean = tool.replace(/[^A-Za-z0-9_-]/g, '-');
  const name = `${server}_${clean}`;
  return name.length <= MAX_NAME ? name : undefined;
}

export function mcpTool(server: string, tool: Tool, name: string, client: () => Client | undefined): AnyTool {
  return defineTool({
    name,
    group: server,
    source: server,
    readOnly: tool.annotations?.readOnlyHint === true,
    description: tool.description || tool.title || `The ${tool.name} tool of the ${server} MCP server.`,
    parameters: (tool.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} },
    permission: 'unknown',
    async run(args, ctx): Promise<ToolResult> {
      const c = client();
      if (!c) return { text: `The MCP server "${server}" is not connected right now (it may be restarting); try again shortly.`, isError: true, unclipped: true };
      try {
        // A server's progress notifications go out as tool.progress (a chat card shows them while the call runs).
        const onprogress = (p: { progress: number; total?: number; message?: string }) =>
          ctx.emit('tool.progress', { callId: ctx.callId, tool: name, progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) });
        const result = await c.callTool({ name: tool.name, arguments: args }, undefined, { signal: ctx.signal, timeout: LIMITS.mcpToolTimeoutMs, resetTimeoutOnProgress: true, onprogress });
        return toResult(result as CallResult);
      } catch (err) {
        if (ctx.signal.aborted) return { text: 'The call was stopped.', isError: true, unclipped: true };
        const text = describeError(err);
        const closed = /closed|disconnect|EPIPE|ECONNRESET/i.test(text);
        return {
          text: closed ? `The MCP server "${server}" went away during the call (${text}); it is being restarted. The call may or may not have taken effect.` : `The MCP tool ${name} failed: ${text}`,
          isError: true,
          unclipped: true,
        };
      }
    },
  });
}

interface CallResult {
  content?: Array<{ type: string; text?: string; data?: string; mimeType?: string; resource?: { uri?: string; text?: string; blob?: string; mimeType?: string }; uri?: string; name?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

/** Text parts joined; images and binary resources named (the agent loop carries text); text capped, errors never. */
export function toResult(result: CallResult): ToolResult {
  const parts: string[] = [];
  for (const c of result.content ?? []) {
    if (c.type === 'text') parts.push(c.text ?? '');
    else if (c.type === 'image' || c.type === 'audio') parts.push(`[${c.type} ${c.mimeType ?? ''}, ${Math.round(((c.data?.length ?? 0) * 3) / 4)} bytes, not shown]`);
    else if (c.type === 'resource') parts.push(c.resource?.text !== undefined ? `[resource ${c.resource.uri ?? ''}]\n${c.resource.text}` : `[resource ${c.resource?.uri ?? ''} (${c.resource?.mimeType ?? 'binary'}), not shown]`);
    else if (c.type === 'resource_link') parts.push(`[resource link ${c.uri ?? ''}${c.name ? ` (${c.name})` : ''}]`);
  }
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (!parts.length && result.toolResult !== undefined) parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  const text = parts.join('\n');
  if (result.isError) return { text: text || 'The MCP tool reported an error with no message.', isError: true, unclipped: true };
  if (text.length <= LIMITS.mcpTextChars) return { text };
  return { text: `${text.slice(0, LIMITS.mcpTextChars)}\n[clipped: the tool returned ${text.length} characters; the first ${LIMITS.mcpTextChars} are shown]` };
}
