/**
 * The contract every tool follows, built-in or MCP. A tool is a plain object made by `defineTool`,
 * living next to its capability's service; the registry does coercion, validation, the permission
 * gate, concurrency and clipping, so a tool's `run` only does its own work.
 */
import type { Emit } from '../kernel/bus.js';
import type { Authority } from '../kernel/provenance.js';

/** Permission classes of seed 001 §5. */
export type PermissionClass = 'code' | 'delete' | 'unknown' | 'other';

/** What the gate is asked about one call. */
export interface PermissionRequest {
  class: PermissionClass;
  /** The rule key: the tool name, or a derived key such as `run_shell(git status:*)` or `db_query(main)`. */
  key: string;
  /** Extra keys that must all be allowed (shell: one per segment; `key` is then the first). */
  keys?: string[];
  /** The broader key offered after the narrow one (shell: `run_shell(git:*)`). */
  broaderKey?: string;
  /** What a human sees in the prompt (masked before it is shown). */
  display?: string;
  /** Forces a fresh prompt even when an allow rule matches (command substitution, eval ...). */
  forcePrompt?: string;
  /**
   * A write to a protected path (what git, a shell or an editor runs later on its own), with the
   * reason shown: only an allow rule covering `key` itself lets it through. A chat's `allow` mode
   * does not skip the prompt and an unattended run is refused, whatever the unattended default.
   */
  protectedPath?: string;
  /** A hard refusal beneath policy (the shell denylist): no rule lifts it. */
  hardDeny?: string;
}

export interface ToolContext {
  signal: AbortSignal;
  /** Emits an event; run-scoped when the call belongs to a run. */
  emit: Emit;
  runId?: string;
  callId: string;
  /** The agent the call runs as, when any. */
  agent?: string;
  /** Is a human watching (chat) or not (scheduled workflow)? Decides prompting. */
  attended: boolean;
  /** Delegation depth: 0 for a top-level turn. */
  depth?: number;
  /** Session this call belongs to (chat), so a gate can read the session's permission mode. */
  sessionId?: string;
  /** The model-authored things this call runs under (a workflow, its agent): unattended, the gate asks as their authors would have. */
  authors?: Authority[];
}

export interface ToolResult {
  text: string;
  isError?: boolean;
  /** Exempt from the 24 000-character clip (load_skill success, MCP errors). */
  unclipped?: boolean;
  /** An image the model sees with the text (browser_screenshot): base64 bytes and their media type. */
  image?: { data: string; mediaType: string };
  /** What the call changed in a file, as a unified diff: shown to people with the call (tool.result, chat), never sent to the model. */
  diff?: string;
}

export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition<A = Record<string, unknown>> {
  name: string;
  /** The family: files, shell, web, meta, vault, work, workflow, dashboard, atlas, db, browser, or an MCP server. */
  group: string;
  /** Read-only tools may run four at a time within one model batch. */
  readOnly?: boolean;
  /**
   * false for a tool that runs serially but changes no file a checkpoint could restore (it writes
   * engine state only, e.g. publish_dashboard): no git snapshot is taken before it.
   */
  checkpoint?: false;
  /** Offered only through an allowlist that names it (the `vault` tool, seed 001 §5 rule 3); "every tool" leaves it out. */
  optIn?: boolean;
  /** Written for a model: what it does, when to use it, its limits, how to page. */
  description: string;
  parameters: JsonSchema;
  /** A class, or a function deriving the permission request from the (validated) arguments. */
  permission: PermissionClass | ((args: A, ctx: ToolContext) => PermissionRequest | Promise<PermissionRequest>);
  /** `built-in` or the owning MCP server. */
  source?: string;
  /** Whether the tool can work right now (browser tools: an extension is paired). Unavailable tools are withheld from models. */
  available?: () => boolean;
  /** What a call answers while the tool is unavailable (browser tools: 'not connected ...'). */
  unavailableReason?: string;
  run(args: A, ctx: ToolContext): Promise<string | ToolResult>;
}

// The argument type is erased at the registry boundary; validation guarantees the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;

export function defineTool<A = Record<string, unknown>>(tool: ToolDefinition<A>): ToolDefinition<A> {
  return tool;
}

export type Decision = { allow: true } | { allow: false; reason: string };

/** The permission gate hook. The default gate (headless callers) allows everything (seed 001 §5 rule 7). */
export interface Gate {
  check(tool: AnyTool, request: PermissionRequest, args: Record<string, unknown>, ctx: ToolContext): Promise<Decision>;
}

export const allowAllGate: Gate = {
  check: async () => ({ allow: true }),
};

/** A tool call as a model (or a person) makes it. */
export interface ToolCall {
  callId: string;
  name: string;
  /** Parsed arguments, or the raw text when the model sent something that is not a JSON object. */
  args: Record<string, unknown> | string;
}

export interface CallOutcome {
  callId: string;
  name: string;
  text: string;
  isError: boolean;
  image?: { data: string; mediaType: string };
  /** The unified diff of a file write (ToolResult.diff), for people. */
  diff?: string;
}
