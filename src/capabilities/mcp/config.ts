/**
 * Validation of the server map: the one place that says what a server entry may hold. Server names
 * are letters, digits and dashes only: no underscore, so `<server>_<tool>` always splits at the
 * first underscore and two servers can never produce the same tool name. A pasted key that is not
 * such a name gets one derived from it (`my_server` -> `my-server`), said in the answer.
 */
import { badRequest } from '../../kernel/errors.js';
import type { McpServerEntry } from './types.js';

export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/;
const TYPES = new Set(['stdio', 'http', 'streamable-http', 'sse']);
const FIELDS = new Set(['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'enabled', 'newToken', 'clearToken', 'transport']);

export const tokenSecretName = (server: string) => `mcp.${server}.token`;
export const tokenHeader = (server: string) => `Bearer {{secret:${tokenSecretName(server)}}}`;

export interface EntryInput extends McpServerEntry {
  newToken?: string;
  clearToken?: boolean;
}

/**
 * `{servers}` or a pasted Claude Desktop config `{mcpServers}`; returns the entries with tokens still
 * on them, by valid server name. A key that is not a valid name (`my_server`, `Brave Search`) is not
 * refused: a valid name is derived from it and `renamed` says which.
 */
export function parseMap(body: unknown): { servers: Record<string, EntryInput>; renamed: Record<string, string> } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {"servers": {"<name>": {command, args?, env?, cwd?} or {type: "http", url, headers?}}} (a Claude Desktop "mcpServers" block works too)');
  const b = body as Record<string, unknown>;
  const servers = b.servers ?? b.mcpServers;
  if (b.servers !== undefined && b.mcpServers !== undefined) throw badRequest('send either servers or mcpServers, not both');
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw badRequest('servers must be an object mapping a server name to its entry');
  const out: Record<string, EntryInput> = {};
  const renamed: Record<string, string> = {};
  const keys = Object.keys(servers as Record<string, unknown>);
  // Valid keys keep their names first, so a derived name never takes one a person wrote.
  const taken = new Set(keys.filter((k) => SERVER_NAME.test(k)));
  for (const key of keys) {
    let name = key;
    if (!SERVER_NAME.test(key)) {
      name = uniqueName(serverNameFrom(key), taken);
      taken.add(name);
      renamed[key] = name;
    }
    out[name] = parseEntry(name, (servers as Record<string, unknown>)[key]);
  }
  return { servers: out, renamed };
}

/** A valid server name from any key: runs of other characters become one dash, cut to 32. */
export function serverNameFrom(key: string): string {
  const name = key.replace(/[^A-Za-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-+/, '').slice(0, 32).replace(/-+$/, '');
  return name || 'server';
}

function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const name = base.slice(0, 32 - suffix.length) + suffix;
    if (!taken.has(name)) return name;
  }
}

function parseEntry(name: string, raw: unknown): EntryInput {
  if (!SERVER_NAME.test(name)) throw badRequest(`server name "${name}" must be 1-32 letters, digits or dashes, starting with a letter or digit (no underscore: tools are named <server>_<tool>)`);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`servers.${name} must be an object`);
  const e = raw as Record<string, unknown>;
  for (const k of Object.keys(e)) if (!FIELDS.has(k)) throw badRequest(`servers.${name}.${k} is not a field; use command, args, env, cwd (local) or type, url, headers (remote), enabled, newToken, clearToken`);
  const type = (e.type ?? e.transport) as string | undefined;
  if (type !== undefined && !TYPES.has(type)) throw badRequest(`servers.${name}.type must be stdio, http or sse`);
  const entry: EntryInput = {};
  if (type) entry.type = type as EntryInput['type'];
  if (e.command !== undefined) entry.command = str(e.command, `servers.${name}.command`);
  if (e.url !== undefined) entry.url = str(e.url, `servers.${name}.url`);
  if (e.cwd !== undefined) entry.cwd = str(e.cwd, `servers.${name}.cwd`);
  if (e.args !== undefined) {
    if (!Array.isArray(e.args) || !e.args.every((a) => typeof a === 'string')) throw badRequest(`servers.${name}.args must be an array of strings`);
    entry.args = e.args as string[];
  }
  if (e.env !== undefined) entry.env = stringMap(e.env, `servers.${name}.env`);
  if (e.headers !== undefined) entry.headers = stringMap(e.headers, `servers.${name}.headers`);
  if (e.enabled !== undefined) {
    if (typeof e.enabled !== 'boolean') throw badRequest(`servers.${name}.enabled must be true or false`);
    entry.enabled = e.enabled;
  }
  if (e.newToken !== undefined) entry.newToken = str(e.newToken, `servers.${name}.newToken`);
  if (e.clearToken !== undefined) {
    if (typeof e.clearToken !== 'boolean') throw badRequest(`servers.${name}.clearToken must be true or false`);
    entry.clearToken = e.clearToken;
  }
  const remote = entry.type === 'http' || entry.type === 'streamable-http' || entry.type === 'sse' || (!entry.type && !!entry.url);
  if (remote) {
    if (!entry.url) throw badRequest(`servers.${name} is a remote server and needs a url (http:// or https://)`);
    if (!/^https?:\/\//i.test(entry.url)) throw badRequest(`servers.${name}.url must start with http:// or https://`);
    if (entry.command) throw badRequest(`servers.${name} has both url and command; a server is either remote (url) or local (command)`);
  } else {
    if (!entry.command) throw badRequest(`servers.${name} needs a command (a local server) or a url (a remote one)`);
    if (entry.newToken) throw badRequest(`servers.${name}.newToken is for remote servers; give a local server its secrets through env with {{secret:<name>}}`);
  }
  return entry;
}

/** The transport an entry uses. */
export function transportOf(entry: McpServerEntry): 'stdio' | 'http' | 'sse' {
  if (entry.type === 'sse') return 'sse';
  if (entry.type === 'http' || entry.type === 'streamable-http' || (!entry.type && entry.url)) return 'http';
  return 'stdio';
}

/**
 * What lands in mcp.json: the entry without token fields. A `newToken` becomes an Authorization
 * header that refers to the secret; `clearToken` removes that header. Other headers stay as sent.
 */
export function storedEntry(name: string, input: EntryInput): McpServerEntry {
  const { newToken, clearToken, headers: sent, ...entry } = input;
  const headers = { ...(sent ?? {}) };
  const auth = Object.keys(headers).find((h) => h.toLowerCase() === 'authorization');
  if (clearToken && auth && headers[auth] === tokenHeader(name)) delete headers[auth];
  if (newToken) headers[auth ?? 'Authorization'] = tokenHeader(name);
  return Object.keys(headers).length ? { ...entry, headers } : entry;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string' || !v.trim()) throw badRequest(`${field} must be a non-empty string`);
  return v;
}

function stringMap(v: unknown, field: string): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) throw badRequest(`${field} must be an object of string values`);
  return { ...(v as Record<string, string>) };
}
