/**
 * Settings > MCP servers > Add server, three ways as Claude Desktop users know them: paste the JSON
 * of claude_desktop_config.json (its "mcpServers" block), or a local command with its arguments and
 * environment, or a remote server's URL with an optional token (stored as a secret). The server
 * joins the map the engine already has (PUT /api/mcp replaces it whole); the engine's sentence about
 * a field stands next to it.
 */
import { useSignal } from '@preact/signals';
import { get, put } from '../api';
import { Field, FormFoot, plainSentence, type FormError } from '../fields';
import { Action } from '../ui';

type Mode = 'json' | 'local' | 'remote';
const EXAMPLE = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
    }
  }
}`;

/** `KEY=value` lines as an object; a line without `=` is refused with its number. */
function envOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const at = line.indexOf('=');
    if (at < 1) throw new FieldRefusal('env', `line ${i + 1} of the environment is not KEY=value`);
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  });
  return env;
}

class FieldRefusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The field an engine sentence about a server entry names (`servers.x.url must ...`, `... needs a command`). */
function entryField(message: string, mode: Mode): string | null {
  if (mode === 'json') return 'json';
  const named = /^servers\.[^.\s]+\.(\w+)/.exec(message)?.[1];
  if (named) return named === 'newToken' ? 'token' : named;
  if (/^server name/.test(message)) return 'name';
  if (/needs a url|\burl\b/.test(message)) return 'url';
  if (/needs a command|\bcommand\b/.test(message)) return 'command';
  return null;
}

export function McpForm({ onAdded, onCancel }: { onAdded: (note: string) => void; onCancel: () => void }) {
  const mode = useSignal<Mode>('json');
  const f = useSignal({ json: '', name: '', command: '', args: '', env: '', cwd: '', url: '', transport: 'http', token: '' });
  const error = useSignal<FormError | null>(null);
  const v = f.value;
  const set = (k: keyof typeof v) => (e: Event) => (f.value = { ...f.value, [k]: (e.target as HTMLInputElement).value });
  /** The servers this form adds, by name, as PUT /api/mcp takes them. */
  const added = (): Record<string, unknown> => {
    if (mode.value === 'json') {
      let parsed: any;
      try {
        parsed = JSON.parse(v.json);
      } catch (e) {
        throw new FieldRefusal('json', `the pasted text is not JSON (${(e as Error).message}); paste the whole block, braces included`);
      }
      const servers = parsed?.mcpServers ?? parsed?.servers ?? parsed;
      if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw new FieldRefusal('json', 'paste an object: {"mcpServers": {"<name>": {"command": ..., "args": [...]}}}');
      return servers;
    }
    if (!v.name.trim()) throw new FieldRefusal('name', 'give the server a name (letters, digits and dashes)');
    if (mode.value === 'local') {
      const args = v.args.split('\n').map((a) => a.trim()).filter(Boolean);
      const env = envOf(v.env);
      return { [v.name.trim()]: { command: v.command, ...(args.length ? { args } : {}), ...(Object.keys(env).length ? { env } : {}), ...(v.cwd.trim() ? { cwd: v.cwd.trim() } : {}) } };
    }
    return { [v.name.trim()]: { type: v.transport, url: v.url.trim(), ...(v.token ? { newToken: v.token } : {}) } };
  };
  const add = async () => {
    error.value = null;
    try {
      const servers = added();
      const current = (await get<{ servers: Record<string, unknown> }>('/api/mcp')).servers;
      const taken = Object.keys(servers).filter((n) => n in current);
      if (taken.length) throw new FieldRefusal(mode.value === 'json' ? 'json' : 'name', `a server called ${taken.map((n) => `"${n}"`).join(', ')} is configured already; pick another name or remove that one first`);
      const r = await put<{ renamed?: Record<string, string> }>('/api/mcp', { servers: { ...current, ...servers } });
      const renamed = Object.entries(r.renamed ?? {}).map(([from, to]) => `"${from}" is called "${to}" here (server names are letters, digits and dashes)`);
      onAdded(`Added ${Object.keys(servers).length === 1 ? 'the server' : `${Object.keys(servers).length} servers`}.${renamed.length ? ` ${renamed.join('; ')}.` : ''}`);
    } catch (e) {
      const message = plainSentence(e instanceof Error ? e.message : String(e));
      const field = e instanceof FieldRefusal ? e.field : entryField(message, mode.value);
      error.value = field ? { fields: { [field]: message }, other: null } : { fields: {}, other: message };
    }
  };
  return (
    <form class="setup-form" aria-label="Add MCP server" onSubmit={(e) => e.preventDefault()}>
      <div class="seg" role="tablist" aria-label="how to add it">
        {(
          [
            ['json', 'Paste JSON'],
            ['local', 'Local command'],
            ['remote', 'Remote URL'],
          ] as const
        ).map(([m, label]) => (
          <button type="button" role="tab" aria-selected={mode.value === m} class={mode.value === m ? 'on' : ''} onClick={() => ((mode.value = m), (error.value = null))}>
            {label}
          </button>
        ))}
      </div>
      {mode.value === 'json' && (
        <Field label="Claude Desktop JSON" name="json" error={error.value} hint='The "mcpServers" block of claude_desktop_config.json, or the whole file.'>
          <textarea class="code" rows={8} value={v.json} placeholder={EXAMPLE} onInput={set('json')} />
        </Field>
      )}
      {mode.value !== 'json' && (
        <Field label="Name" name="name" error={error.value} hint="Its tools are called <name>_<tool>.">
          <input value={v.name} onInput={set('name')} placeholder={mode.value === 'local' ? 'filesystem' : 'linear'} />
        </Field>
      )}
      {mode.value === 'local' && (
        <>
          <Field label="Command" name="command" error={error.value}>
            <input class="mono" value={v.command} onInput={set('command')} placeholder="npx" />
          </Field>
          <Field label="Arguments, one a line" name="args" error={error.value}>
            <textarea class="code" rows={3} value={v.args} onInput={set('args')} placeholder={'-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes'} />
          </Field>
          <Field label="Environment, KEY=value a line" name="env" error={error.value} hint="A secret by name: API_KEY={{secret:github.token}}.">
            <textarea class="code" rows={2} value={v.env} onInput={set('env')} placeholder="API_KEY={{secret:github.token}}" />
          </Field>
          <Field label="Working folder (optional)" name="cwd" error={error.value}>
            <input class="mono" value={v.cwd} onInput={set('cwd')} placeholder="${workspace}" />
          </Field>
        </>
      )}
      {mode.value === 'remote' && (
        <>
          <Field label="URL" name="url" error={error.value}>
            <input class="mono" value={v.url} onInput={set('url')} placeholder="https://mcp.example.com/mcp" />
          </Field>
          <Field label="Transport" name="type" error={error.value}>
            <select value={v.transport} onChange={set('transport')}>
              <option value="http">Streamable HTTP</option>
              <option value="sse">Server-sent events (older servers)</option>
            </select>
          </Field>
          <Field label="Token (optional)" name="token" error={error.value} hint="Sent as a bearer token, stored as a secret. Servers that sign you in in the browser need none.">
            <input type="password" value={v.token} onInput={set('token')} autoComplete="off" />
          </Field>
        </>
      )}
      <FormFoot error={error.value} />
      <div class="row">
        <Action kind="primary" onClick={add}>Add this server</Action>
        <button type="button" class="btn" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
