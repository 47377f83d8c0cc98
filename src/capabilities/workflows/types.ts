/**
 * The workflow document (our contract, issue 12: keep these names) and the contract every node type
 * follows. Types only: other capabilities may import this file.
 */
import type { Emit } from '../../kernel/bus.js';
import type { Authority, ModelAuthor, Provenance } from '../../kernel/provenance.js';

export type Reducer = 'replace' | 'append' | 'merge' | 'add';
export const REDUCERS: readonly Reducer[] = ['replace', 'append', 'merge', 'add'];

export interface StateKeySpec {
  reducer: Reducer;
  initial?: unknown;
}

export interface NodeSpec {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  retry?: { maxAttempts?: number; backoffMs?: number };
  timeoutMs?: number;
  name?: string;
}

export interface EdgeSpec {
  from: string;
  to: string;
  /** A branch of the source (`true`, `false`, `approved`, `rejected`) or `error`. */
  when?: string;
}

export interface WorkflowDocument {
  id: string;
  formatVersion: 2;
  group: string | null;
  name?: string;
  description?: string;
  disabled?: boolean;
  state?: Record<string, StateKeySpec>;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
}

/** One row of GET /api/workflows: the document, or what is known of a file the engine rejects. */
export type WorkflowListItem =
  | (WorkflowDocument & { warnings?: string[] })
  | { id: string; group: string | null; error: string; formatVersion?: unknown; name?: string };

/** How a run was started. Manual runs from a client are attended; webhook and cron runs are not. */
export type RunSource = 'manual' | 'webhook' | 'cron' | 'workflow';

/** What a node's run function may use. */
export interface NodeContext {
  runId: string;
  workflowId: string;
  nodeId: string;
  /** Aborted by stop, by the node's timeout, or when the run fails elsewhere. */
  signal: AbortSignal;
  /** Run-scoped emit; events carry this node's id. */
  emit: Emit;
  attended: boolean;
  /** The model-authored things this run is or runs under (src/kernel/provenance.ts); tool calls carry them to the gate. */
  authors?: Authority[];
  /** Renders `{{...}}` templates (strings, and strings inside arrays and objects). */
  render(value: unknown, extra?: TemplateScope): unknown;
  /** Renders templates and `{{secret:name}}` (only for a node type's secretFields). */
  renderSecrets(value: unknown): Promise<unknown>;
  /** Renders to text (objects as JSON, missing values as nothing). */
  text(value: unknown, extra?: TemplateScope): string;
  /** A template scope with the run's current values (for expressions). */
  scope(extra?: TemplateScope): TemplateScope;
  /** One write through the key's reducer; emits `state.updated`; returns the new value. */
  writeState(key: string, value: unknown): unknown;
  readState(key?: string): unknown;
  /** Sleeps on the engine clock (the test clock in tests), abortable. */
  sleep(ms: number): Promise<void>;
  /** Services the node types reach (wired by the composition root). */
  services: NodeServices;
  /** Runs another node spec inline (map items); honours retry/timeouts of that spec. `signal` must follow this node's signal. */
  runInline(spec: NodeSpec, extra: TemplateScope, signal: AbortSignal): Promise<NodeResult>;
  /** Starts a subworkflow as a child run and waits for its result. `signal` must follow this node's signal. */
  runChild(workflowId: string, payload: unknown, signal: AbortSignal): Promise<unknown>;
  /** The nodes this node's edges of `branch` lead to (an edge without `when` follows the type's default branch). */
  following(branch: string): NodeSpec[];
  /** The commands gates leading into this node approved for it (a gate shows the command it approves). */
  approvedCommands(): string[];
}

export interface TemplateScope {
  trigger?: unknown;
  state?: Record<string, unknown>;
  nodes?: Record<string, { output: unknown }>;
  item?: unknown;
  index?: number;
}

export interface NodeResult {
  output: unknown;
  /** The branch taken: edges with a matching `when` are followed. */
  branch?: string;
}

/** A node type: one file under nodes/, its config schema and description beside its run function. */
export interface NodeType {
  type: string;
  /** For a person and a model (list_node_types). */
  description: string;
  /** JSON Schema of `config`. */
  config: Record<string, unknown>;
  /** A minimal example node (docs and list_node_types). */
  example: Record<string, unknown>;
  /** Branches edges may name in `when` (besides `error`). */
  branches?: readonly string[];
  /** The branch an edge without `when` follows (gate: approved; condition: true). Default: every success. */
  defaultBranch?: string;
  trigger?: boolean;
  /**
   * The run function waits on nothing (no I/O, no timer, no outside promise): it settles in the turn
   * it is called. The executor then checks the signal before it instead of racing it against the
   * signal (a listener and a promise per call: a map of state items paid for them on every item).
   */
  instant?: boolean;
  /** Config fields holding templates that may use `{{secret:name}}` (http headers). */
  secretFields?: readonly string[];
  /** The state key this node writes, when known from its config (validation). */
  writes?(config: Record<string, unknown>): string | undefined;
  /** Extra validation beyond the schema: sentences of what to fix. */
  check?(config: Record<string, unknown>, doc: WorkflowDocument): string[];
  /**
   * Whether a start that never completed may have left side effects (resume reports it as lossy):
   * `events` are the node's events of that attempt.
   */
  lossy?(config: Record<string, unknown>, events: Array<Record<string, unknown>>, readOnlyTool: (name: string) => boolean): boolean;
  run(config: Record<string, unknown>, ctx: NodeContext): Promise<NodeResult>;
}

/** Services node types use; engine.ts provides them (see service.ts). */
export interface NodeServices {
  agent?(req: AgentNodeRequest): Promise<{ text: string; status: string; error?: string }>;
  /** `approved`: a person approved this exact command at a gate just before it; the permission gate is not asked again (the denylist still is). */
  command?(req: { command: string; cwd?: string; signal: AbortSignal; emit: Emit; runId: string; callId: string; attended: boolean; authors?: Authority[]; approved?: boolean; timeoutMs?: number }): Promise<{ exitCode: number; text: string }>;
  /**
   * What an unattended run lacks to run `command` (PUT warnings): the rule keys to add, or no keys and
   * why no rule can allow it (`never`: the denylist refuses it even after a gate); undefined when it would run.
   */
  unattendedNeeds?(command: string): Promise<{ keys: string[]; why?: string; never?: boolean } | undefined>;
  http?(req: HttpRequest): Promise<HttpResponse>;
  secret?(name: string): Promise<string | undefined>;
  notify?(input: { title: string; body?: string; level?: 'info' | 'success' | 'warning' | 'error'; runId?: string; link?: string; source?: string }): Promise<unknown>;
  gate?(req: { runId: string; workflowId: string; nodeId: string; message: string; signal: AbortSignal; emit: Emit }): Promise<{ approved: boolean; note?: string }>;
  /** Optional checkpoint hook (the git capability's snapshot), called before agent and command nodes. */
  checkpoint?(runId: string, nodeId: string): Promise<void>;
}

export interface AgentNodeRequest {
  agent?: string;
  system?: string;
  prompt: string;
  tools?: string[];
  maxTurns?: number;
  signal: AbortSignal;
  emit: Emit;
  runId: string;
  nodeId: string;
  attended: boolean;
  authors?: Authority[];
  onDelta(text: string): void;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  allowPrivate: boolean;
  signal: AbortSignal;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What validation answers: a fix list (blocking) and warnings (not). */
export interface ValidationResult {
  ok: boolean;
  errors: string[];
  warnings: string[];
  summary?: { nodes: number; edges: number; triggers: string[] };
}

// --- where workflows keep what outlives a run: the home's files, or a pool's database (src/pool) ----

/** One stored definition as its backend holds it: the text, or only its size when past the limit. */
export type StoredWorkflow = { id: string; text: string } | { id: string; tooLarge: number; stamp: string };

/** A model's change held for a person's review. */
export interface Proposal {
  doc: WorkflowDocument;
  author: ModelAuthor;
}

/** Where definitions, their authors and proposals live (files: files.ts; a pool: src/pool/workflow-backend.ts). */
export interface WorkflowBackend {
  /** Calls `changed` when definitions may have changed from outside (a hand edit, another engine). */
  watch(changed: () => void): void | Promise<void>;
  list(): Promise<StoredWorkflow[]>;
  read(id: string): Promise<StoredWorkflow | undefined>;
  /** Writes `text` as `author`; `{carry}`: as whoever wrote that earlier text; undefined: a text judged like a hand edit. */
  write(id: string, text: string, author: Provenance | { carry: string } | undefined): Promise<void>;
  remove(id: string): Promise<void>;
  /** Who wrote exactly `text` as workflow `id` (a person unless a model saved this very text). */
  authorOf(id: string, text: string): Provenance;
  proposal(id: string): Promise<Proposal | undefined>;
  putProposal(id: string, proposal: Proposal): Promise<void>;
  removeProposal(id: string): Promise<void>;
  close(): void;
}

/** The last fire of each cron trigger (`<workflowId>:<nodeId>` -> epoch ms), for missed fires. */
export interface CronStateStore {
  load(): Promise<Record<string, number>>;
  save(last: Record<string, number>): Promise<void>;
}

/** A top-level run a pool queues for its workers (manual, webhook, cron). */
export interface QueuedStart {
  workflowId: string;
  source: 'manual' | 'webhook' | 'cron';
  title: string;
  payload: unknown;
  attended: boolean;
  nodeId?: string;
  /** A cron fire's tick (`<workflowId>:<nodeId>:<epoch ms>`): the pool starts one run per tick. */
  tick?: string;
}

/** A child run (a subworkflow, or a map item's workflow) that a pool queues for any of its engines. */
export interface ChildStart {
  workflowId: string;
  parentRunId: string;
  title: string;
  payload: unknown;
  attended: boolean;
  /** The parent's model authors; the engine that runs the child adds the child's own. */
  authors?: Authority[];
  depth: number;
  /** The workflow ids above the child, the top first. */
  ancestry: readonly string[];
}

/** How a child run ended, as its parent is told. */
export interface ChildEnd {
  runId: string;
  status: 'completed' | 'failed' | 'stopped' | 'interrupted';
  state?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  error?: string;
  /** It failed at the subworkflow depth limit: the parent fails with the same sentence. */
  depthLimit?: boolean;
}

/** A queued run a worker of the pool was handed: start it, run a child, or take a run over from an engine that died. */
export interface RunJob {
  runId: string;
  takeover: boolean;
  start?: Omit<QueuedStart, 'tick' | 'title'>;
  child?: ChildStart;
}

/**
 * The pool's side of the trigger service (src/pool/workflow-pool.ts): every top-level run is queued
 * and executed by whichever engine's worker takes it; a resume claims the run pool-wide first.
 */
export interface WorkflowPool {
  workflows: WorkflowBackend;
  cron: CronStateStore;
  gates: GateStore;
  /** Queues a run; 409 while the workflow has a queued or running top-level run anywhere in the pool; undefined for a tick already queued. */
  enqueue(start: QueuedStart): Promise<string | undefined>;
  /** Claims an interrupted run for this engine before it resumes it (409 when the workflow runs elsewhere). */
  claimResume(runId: string): Promise<void>;
  /** The run a job names is claimed and executed here; resolves when it has ended. */
  work(handler: (job: RunJob) => Promise<void>): void;
  /**
   * Queues a child run for whichever engine takes it first and resolves with how it ended. One no
   * engine took within LIMITS.poolChildGraceMs runs `here` (every worker busy, its parent's own slot
   * among them): a parent never waits on a child nobody can run. `signal` stops the child.
   */
  child(start: ChildStart, here: (runId: string) => Promise<ChildEnd>, signal: AbortSignal): Promise<ChildEnd>;
  /** A child run a job handed this engine ended: its parent, on any engine, reads how. */
  childEnded(end: ChildEnd): Promise<void>;
}

/** A gate waiting on a person (GET /api/gates). */
export interface GateInfo {
  key: string;
  runId: string;
  nodeId: string;
  workflowId: string;
  message: string;
  since: number;
}

/** Where gates wait and are answered: this engine's memory and gates.json, or a pool's table. */
export interface GateStore {
  init(): Promise<void>;
  wait(req: { runId: string; workflowId: string; nodeId: string; message: string; signal: AbortSignal; emit: (kind: string, payload?: Record<string, unknown>) => void; changes: () => Promise<string> }): Promise<{ approved: boolean; note?: string }>;
  resolve(input: { runId: string; nodeId: string; approved: boolean; note?: string }): Promise<void>;
  list(): { pending: string[]; orphaned: string[]; gates: Array<GateInfo & { orphaned: boolean }> };
  forgetRun(runId: string): void;
}
