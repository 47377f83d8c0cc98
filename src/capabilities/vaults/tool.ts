/**
 * The `vault` tool (seed 001 §4.5, §5): registered globally, opt-in — the registry offers it only
 * through an explicit allowlist, and agents add it only when their definition sets `vault: <mount>`.
 * Every call works on that one vault, whatever the model asks for.
 */
import { LIMITS } from '../../kernel/limits.js';
import { defineTool } from '../../tools/types.js';
import type { agentOps } from './agent-ops.js';

export const VAULT_COMMANDS = ['search', 'read', 'links', 'propose', 'append_log'] as const;

export interface VaultToolArgs {
  command: (typeof VAULT_COMMANDS)[number];
  query?: string;
  note?: string;
  name?: string;
  type?: string;
  content?: string;
  entry?: string;
  limit?: number;
}

export const vaultToolParameters = {
  type: 'object',
  additionalProperties: false,
  properties: {
    command: { type: 'string', enum: [...VAULT_COMMANDS] },
    query: { type: 'string', description: 'for search: the words to look for' },
    note: { type: 'string', description: 'for read, links, append_log: a note name, alias or vault-relative path' },
    name: { type: 'string', description: 'for propose: the new note name (no folder)' },
    type: { type: 'string', description: "for propose: a note type from the vault's schema (default: its default type)" },
    content: { type: 'string', description: 'for propose: the markdown text, frontmatter allowed' },
    entry: { type: 'string', description: 'for append_log: the one line to add under the Log heading' },
    limit: { type: 'number', minimum: 1, maximum: 100, description: `for search: most results (default ${LIMITS.vaultLimitDefault})` },
  },
  required: ['command'],
} as const;

export function vaultTool(deps: { ops: ReturnType<typeof agentOps>; vaultOf: (agent: string | undefined) => Promise<string | undefined> }) {
  return defineTool<VaultToolArgs>({
    name: 'vault',
    group: 'vault',
    optIn: true,
    description:
      "Works in your note vault (the one your agent definition names). command: 'search' {query, limit?} finds notes by name, alias and text; 'read' {note} returns a note; " +
      "'links' {note} lists its outbound links, backlinks and unresolved links; 'propose' {name, type?, content} stages a NEW note in the inbox for a person to triage — if a note with that name or alias exists you get it back instead, so read it rather than duplicating it; " +
      "'append_log' {note, entry} adds one dated line under the note's Log heading. Those are the only writes: you cannot edit a note's text above its Log.",
    parameters: vaultToolParameters,
    // Keyed by command, the way db_query keys by connection: "always" on a read never allows a write.
    permission: (args) => ({ class: 'unknown', key: `vault(${args.command})` }),
    async run(args, ctx) {
      const vault = await deps.vaultOf(ctx.agent);
      if (!vault) {
        return { text: 'The vault tool works only for an agent whose definition sets vault: <mount>; this agent has none.', isError: true };
      }
      const need = (field: keyof VaultToolArgs) => {
        const value = args[field];
        if (typeof value !== 'string' || !value.trim()) throw new Error(`command "${args.command}" needs "${field}"`);
        return value;
      };
      const who = ctx.agent ?? 'agent';
      try {
        switch (args.command) {
          case 'search':
            return await deps.ops.search(vault, need('query'), args.limit ?? LIMITS.vaultLimitDefault);
          case 'read':
            return await deps.ops.read(vault, need('note'));
          case 'links':
            return await deps.ops.links(vault, need('note'));
          case 'propose': {
            const r = await deps.ops.propose(vault, { name: need('name'), type: args.type, content: args.content ?? '' }, who);
            if (r.duplicate) {
              return `Not proposed: note ${r.existing} already has the name or alias "${r.name}". Here it is; append to its Log or propose a note with another name.\n\n${r.content}`;
            }
            return `Proposed ${r.path}: it waits in the inbox for a person to accept or reject.`;
          }
          case 'append_log': {
            const r = await deps.ops.appendLog(vault, need('note'), need('entry'), who);
            return `Added to the Log of ${r.path}: ${r.line}`;
          }
        }
      } catch (err) {
        return { text: `vault ${args.command}: ${(err as Error).message}`, isError: true };
      }
    },
  });
}
