/**
 * The relay (docs/relay.md): settings and paired phones (store.ts), the outbound connector
 * (connector.ts), and how a phone's request reaches the engine: the relay policy first
 * (policy.ts), then the engine's own routes, presenting the mobile token, so the guard and every
 * route check hold as for a phone on the LAN. Also the phone's handshake and its approvals list.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Emit } from '../../kernel/bus.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { ENGINE_NAME, engineVersion } from '../../kernel/version.js';
import { createConnector } from './connector.js';
import { relayRefusal } from './policy.js';
import { encodeBlob, PROTOCOL_VERSION } from './protocol.js';
import { loadRelayStore, type StoredDevice } from './store.js';
import { RELAY_DEVICE_PAIRED, RELAY_DEVICE_UNPAIRED, type Approval, type RelayDevice, type RelayStatus } from './types.js';

/** The header the dispatch marks a relayed request with: a per-process secret and the device id. */
const RELAY_DEVICE_HEADER = 'x-engine-relay-device';

export interface InjectRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface RelayDeps {
  home: Home;
  emit: Emit;
  log(line: string): void;
  /** The engine's routes, as Fastify's `inject` reaches them. */
  inject(request: InjectRequest): Promise<{ statusCode: number; payload: string; headers: Record<string, unknown> }>;
  mobileToken: () => string;
  /** Every event as its JSON text (the bus). */
  subscribeEvents(listener: (json: string) => void): () => void;
  /** Where the engine answers, for the QR code's default link. */
  engineUrl: () => string;
  gates: () => Array<{ key: string; runId: string; nodeId: string; workflowId: string; message: string; since: number; orphaned?: boolean }>;
  permissions: () => Array<{ runId?: string; callId: string; tool: string; key: string; keys: string[]; display: string; requestedAt: number }>;
}

const BROKER_PROTOCOLS = new Set(['ws:', 'wss:', 'mqtt:', 'mqtts:']);
/** The largest answer sent as one frame: hosted brokers commonly refuse messages past a few MB. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export async function createRelayService(deps: RelayDeps) {
  const store = await loadRelayStore(deps.home, deps.log);
  const file = store.file;
  const marker = randomBytes(24).toString('base64url');

  const connector = createConnector({
    store,
    log: deps.log,
    subscribeEvents: deps.subscribeEvents,
    onPaired: (device) => deps.emit(RELAY_DEVICE_PAIRED, { deviceId: device.id, name: device.name }),
    dispatch,
  });

  async function dispatch(device: StoredDevice, request: { method: string; path: string; body?: unknown }) {
    const refusal = relayRefusal(request.method, request.path, request.body, file.remoteStart);
    if (refusal) return { status: refusal.status, body: { error: refusal.message } };
    const body = request.body;
    const headers: Record<string, string> = { 'x-engine-mobile-token': deps.mobileToken(), [RELAY_DEVICE_HEADER]: `${marker} ${device.id}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await deps.inject({ method: request.method, url: request.path, headers, payload: body === undefined ? undefined : JSON.stringify(body) });
    if (res.payload.length > MAX_ANSWER_BYTES) {
      return { status: 413, body: { error: `the answer is ${Math.ceil(res.payload.length / 1048576)} MB, more than the relay carries in one message (4 MB); ask for less (a range, a page) or open it on the computer` } };
    }
    let parsed: unknown = res.payload;
    if (String(res.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = res.payload ? JSON.parse(res.payload) : null;
      } catch {
        // answered as text
      }
    }
    return { status: res.statusCode, body: parsed };
  }

  const deviceView = (d: StoredDevice): RelayDevice => ({ id: d.id, name: d.name, pairedAt: d.pairedAt, lastSeenAt: d.lastSeenAt });

  function pairing(): RelayStatus['pairing'] {
    if (!file.enabled || !file.url || !file.pub) return null;
    const blob = encodeBlob({ v: PROTOCOL_VERSION, url: file.url, engine: file.engine, pair: file.pairing.id, secret: file.pairing.secret, pub: file.pub });
    // The fragment never reaches a server: not the page's host, not the broker.
    return { blob, link: `${(file.app ?? deps.engineUrl()).replace(/\/+$/, '')}/m/#relay=${blob}` };
  }

  if (file.enabled) connector.start();

  return {
    status(): RelayStatus {
      return {
        enabled: file.enabled,
        state: connector.state(),
        engine: file.engine,
        url: file.url,
        app: file.app,
        remoteStart: file.remoteStart,
        error: connector.error(),
        pairing: pairing(),
        devices: file.devices.map(deviceView),
        refused: { ...connector.refused },
      };
    },

    async enable(input: { url?: unknown; app?: unknown }): Promise<RelayStatus> {
      const url = brokerUrl(input.url);
      const app = input.app === undefined || input.app === null ? null : appUrl(input.app);
      await connector.stop();
      await store.ensureKeys();
      Object.assign(file, { url, app, enabled: true });
      await store.save();
      connector.start();
      return this.status();
    },

    async disable(): Promise<RelayStatus> {
      file.enabled = false;
      await store.save();
      await connector.stop();
      return this.status();
    },

    async setRemoteStart(enabled: boolean): Promise<boolean> {
      file.remoteStart = enabled;
      await store.save();
      return enabled;
    },

    async unpair(id: string): Promise<void> {
      const device = file.devices.find((d) => d.id === id);
      if (!device) throw notFound(`no paired device ${id}; GET /api/relay lists the paired devices`);
      await connector.drop(device, 'This phone was unpaired in the workbench');
      file.devices = file.devices.filter((d) => d !== device);
      await store.save();
      deps.emit(RELAY_DEVICE_UNPAIRED, { deviceId: id });
    },

    /** The paired device a relayed request came from, or undefined for any other caller. */
    deviceOf(headers: IncomingHttpHeaders): RelayDevice | undefined {
      const value = headers[RELAY_DEVICE_HEADER];
      if (typeof value !== 'string') return undefined;
      const [mark, id] = value.split(' ');
      const a = Buffer.from(mark ?? '');
      const b = Buffer.from(marker);
      if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
      const device = file.devices.find((d) => d.id === id);
      return device && deviceView(device);
    },

    session(headers: IncomingHttpHeaders) {
      const device = this.deviceOf(headers);
      return {
        engine: ENGINE_NAME,
        version: engineVersion(),
        via: device ? ('relay' as const) : ('direct' as const),
        device: device ?? null,
        remoteStart: file.remoteStart,
        approvals: this.approvals().length,
      };
    },

    approvals(): Approval[] {
      const gates: Approval[] = deps
        .gates()
        .filter((g) => !g.orphaned)
        .map((g) => ({
          kind: 'gate',
          id: g.key,
          runId: g.runId,
          title: g.message,
          since: g.since,
          resolve: { method: 'POST', path: '/api/gates/resolve', body: { runId: g.runId, nodeId: g.nodeId } },
          detail: { workflowId: g.workflowId, nodeId: g.nodeId },
        }));
      const prompts: Approval[] = deps.permissions().map((p) => ({
        kind: 'permission',
        id: p.callId,
        runId: p.runId ?? null,
        title: p.display,
        since: p.requestedAt,
        resolve: { method: 'POST', path: '/api/permissions/resolve', body: { runId: p.runId ?? '', callId: p.callId } },
        detail: { tool: p.tool, key: p.key, keys: p.keys },
      }));
      return [...gates, ...prompts].sort((a, b) => a.since - b.since);
    },

    async close(): Promise<void> {
      await connector.stop();
      await store.flush();
    },
  };
}

export type RelayService = Awaited<ReturnType<typeof createRelayService>>;

function brokerUrl(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw badRequest('url must be the broker\'s WebSocket address, such as "wss://broker.example.com/mqtt"');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badRequest(`url "${value}" is not an address; send the broker's WebSocket address, such as "wss://broker.example.com/mqtt"`);
  }
  if (!BROKER_PROTOCOLS.has(url.protocol)) throw badRequest(`url must start with wss:// or ws:// (phones reach the broker over WebSocket; mqtt:// and mqtts:// serve the engine alone), not ${url.protocol}//`);
  return url.toString();
}

function appUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value.trim()) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw badRequest('app must be the https:// address the phone loads the workbench\'s /m/ page from, or null for the engine\'s own');
  return url.origin + url.pathname.replace(/\/+$/, '');
}
