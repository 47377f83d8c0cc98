/**
 * The secrets the engine keeps for itself, by name, with what uses each: a person sees them listed
 * (GET /api/secrets answers `usedBy`) but changes them where they belong (a provider's key in its
 * form, a connection's password in its own), never by deleting a name they did not make. The names
 * are the owners' own (test/api/secrets-owners.test.ts checks each against its constant).
 */
const OWNERS: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^browser\.pairing-token$/, () => 'the browser extension pairing (Settings > Browser, Rotate token)'],
  [/^gateway\.key$/, () => 'the completions gateway on the network (Local models)'],
  [/^push:vapid-private-key$/, () => 'phone notifications (the engine signs pushes with it)'],
  [/^embeddings\.key$/, () => 'the embeddings provider of code search'],
  [/^provider\.(.+)\.key$/, (m) => `provider "${m[1]}" (Settings > Providers)`],
  [/^db:(.+):(password|url)$/, (m) => `database connection "${m[1]}" (its ${m[2]}, Databases)`],
  [/^mcp\.(.+)\.oauth\.(tokens|client)$/, (m) => `MCP server "${m[1]}" (its sign-in; Log out there)`],
  [/^mcp\.(.+)\.token$/, (m) => `MCP server "${m[1]}" (its token, Settings > MCP servers)`],
];

/** What uses a secret the engine keeps for itself; undefined for a person's own secret. */
export function secretOwner(name: string): string | undefined {
  for (const [re, say] of OWNERS) {
    const m = re.exec(name);
    if (m) return say(m);
  }
  return undefined;
}
