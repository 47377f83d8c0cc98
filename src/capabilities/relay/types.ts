/** The relay capability's shapes, and the event the push capability listens to. Types only. */

/** Emitted on unpair with `{deviceId}`: the push capability drops that device's subscription. */
export const RELAY_DEVICE_UNPAIRED = 'relay.device.unpaired';
/** Emitted when a phone pairs, with `{deviceId, name}`. */
export const RELAY_DEVICE_PAIRED = 'relay.device.paired';

/** `off` (disabled), `connecting` (first dial or after a broker restart), `connected`. */
export type RelayState = 'off' | 'connecting' | 'connected';

export interface RelayDevice {
  id: string;
  name: string;
  pairedAt: number;
  lastSeenAt: number | null;
}

export interface RelayStatus {
  enabled: boolean;
  state: RelayState;
  /** The engine's random id in its topics (a broker's per-engine user name, docs/relay.md). */
  engine: string;
  /** The broker's URL, as given to POST /api/relay/enable. */
  url: string | null;
  /** Where the phone loads the /m/ page from (the QR code's link); the engine's own address by default. */
  app: string | null;
  /** Whether a paired phone may start work (default false: it may approve and stop). */
  remoteStart: boolean;
  /** The last connection error, in a sentence, while not connected. */
  error: string | null;
  /** The one-time pairing code and the link the QR code holds; null while off. */
  pairing: { blob: string; link: string } | null;
  devices: RelayDevice[];
  /** Frames refused since start: altered or forged, replayed, unreadable. */
  refused: { tampered: number; replayed: number; malformed: number };
}

/** One thing waiting on a person, as GET /api/mobile/approvals lists it. */
export interface Approval {
  kind: 'gate' | 'permission';
  /** The gate key (`<runId>:<nodeId>`) or the permission prompt's call id. */
  id: string;
  runId: string | null;
  /** What the person reads: the gate's message or the prompt's masked display. */
  title: string;
  since: number;
  /** The route that answers it and the body fields that name it. */
  resolve: { method: 'POST'; path: string; body: Record<string, string> };
  detail: Record<string, unknown>;
}
