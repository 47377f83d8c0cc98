/** Phone push (docs/push.md): what other capabilities and the composition root see. Types only. */

/** A browser's PushSubscription as `subscription.toJSON()` gives it. */
export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** One device's push channel, kept in <home>/push.json (one per device id). */
export interface StoredSubscription extends PushSubscriptionJson {
  deviceId: string;
  createdAt: number;
}

/**
 * What a push carries, in full: titles and ids, never a gate's message, a prompt's command, a chat's
 * text or a secret. The phone fetches the rest over the authenticated API once opened.
 */
export interface PushMessage {
  kind: 'gate' | 'permission' | 'runs';
  title: string;
  body: string;
  /** Where a tap leads on the phone (`/m/...`). */
  url: string;
  /** Notifications with the same tag replace each other on the phone. */
  tag: string;
  /** The ids the message is about: gate keys, `<runId>:<callId>`, run ids. */
  ids: string[];
}

/** The answer of one push service to one push. */
export type SendOutcome = 'sent' | 'gone' | 'failed';

/** Sends one HTTP POST to a push service endpoint (engine.ts passes one through the URL floor). */
export type PushPost = (endpoint: string, init: { headers: Record<string, string>; body: Buffer }) => Promise<{ status: number; body?: string }>;

/** Whether the person is at the workbench now (src/capabilities/push/presence.ts). */
export interface PresenceSignal {
  /** A workbench page's report over its /events socket: `{"kind":"presence","active":bool}`. */
  report(client: object, active: boolean): void;
  /** The socket closed. */
  drop(client: object): void;
  active(): boolean;
}
