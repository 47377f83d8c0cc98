import { Redactor } from './redact.js';

/**
 * The one event bus. Every state change the engine makes is emitted here once; the /events socket
 * fans it out, run-scoped events land in their run's log, stores (notifications, reports) read it.
 */
export interface EngineEvent {
  kind: string;
  ts: number;
  seq: number;
  runId?: string;
  [field: string]: unknown;
}

/** A subscriber gets the event and its JSON text, serialized once for every consumer. */
export type Listener = (event: EngineEvent, json: string) => void;

/** Kinds that reach the socket but never a run log (seed 000 §6 rule 1). */
export const UNLOGGED_KINDS: ReadonlySet<string> = new Set(['fs.changed', 'config.reloaded', 'chat.renamed', 'shell.output']);

export type EmitPayload = Record<string, unknown> & { runId?: string };

export class Bus {
  private seq = 0;
  private readonly listeners = new Set<Listener>();

  /** The exit mask (src/kernel/redact.ts): every event leaves through it. */
  constructor(readonly redactor: Redactor = new Redactor()) {}

  /** `runId`, when given, outranks the payload's own (a run-scoped emit without copying its payload). */
  emit(kind: string, payload: EmitPayload = {}, runId: string | undefined = payload.runId): EngineEvent {
    // kind/ts/seq/runId come first and cannot be overwritten by a payload field.
    let event: EngineEvent = { kind, ts: Date.now(), seq: ++this.seq };
    if (runId) event.runId = runId;
    // A plain loop over the payload, no rest copy: a workflow map emits two events an item.
    for (const key in payload) {
      const value = payload[key];
      if (value !== undefined && key !== 'kind' && key !== 'ts' && key !== 'seq' && key !== 'runId' && Object.hasOwn(payload, key)) event[key] = value;
    }
    let json = JSON.stringify(event);
    // Listeners get the masked event too: run logs and stores write what they are given.
    if (this.redactor.has(json)) {
      event = this.redactor.value(event);
      json = JSON.stringify(event);
    }
    for (const listener of this.listeners) {
      try {
        listener(event, json);
      } catch (err) {
        // A faulty listener must never break the emitter or the other listeners.
        process.emitWarning(`event listener failed on ${kind}: ${(err as Error).message}`);
      }
    }
    return event;
  }

  /** Events another engine of a pool emitted, re-emitted here (`relay`). */
  private readonly relayedEvents = new WeakSet<EngineEvent>();

  /**
   * Re-emits an event another engine of a pool emitted (src/pool): the same kind, time, run and
   * fields under this bus's own `seq` (monotonic per socket). Listeners that keep shared state
   * (a notification for a failed run) skip it with `relayed`: the engine that emitted it did that.
   */
  relay(source: EngineEvent): void {
    let event: EngineEvent = { ...source, seq: ++this.seq };
    let json = JSON.stringify(event);
    if (this.redactor.has(json)) {
      event = this.redactor.value(event);
      json = JSON.stringify(event);
    }
    this.relayedEvents.add(event);
    for (const listener of this.listeners) {
      try {
        listener(event, json);
      } catch (err) {
        process.emitWarning(`event listener failed on ${event.kind}: ${(err as Error).message}`);
      }
    }
  }

  relayed(event: EngineEvent): boolean {
    return this.relayedEvents.has(event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** What a capability gets to emit events: the bus itself or a run-scoped view of it. */
export type Emit = (kind: string, payload?: EmitPayload) => void;
