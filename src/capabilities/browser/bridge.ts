/**
 * The one live extension connection and the requests in flight on it. A second connection replaces
 * the first (the older socket is closed with a reason and its requests fail); requests are answered
 * by id, each bounded in time and by the caller's abort signal.
 */
import { WebSocket, type RawData } from 'ws';
import type { Emit } from '../../kernel/bus.js';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { BridgeAnswer, BridgeResponse, ExtensionMessage } from './types.js';

/** Close codes the extension understands (extension/browser/background.js). */
const CLOSE_REPLACED = 4001;
export const CLOSE_ROTATED = 4002;
export const CLOSE_ENGINE = 4003;

export const NOT_CONNECTED =
  'not connected: no browser extension is paired. Load the folder GET /api/browser names as an unpacked extension in Chrome or Chromium (chrome://extensions, Developer mode, Load unpacked); it pairs by itself.';

interface Pending {
  resolve: (value: BridgeAnswer) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  ws: WebSocket;
}

export interface Client {
  version: string;
  userAgent: string;
  connectedAt: string;
  /** The last frame the extension sent (its keep-alive comes every 20 s). */
  lastSeenAt: string;
}

export class Bridge {
  private ws: WebSocket | undefined;
  private client: Client | undefined;
  private readonly pending = new Map<number, Pending>();
  /** Thumbnails announced by an answer and not yet arrived, by request id. */
  private readonly following = new Map<number, { ws: WebSocket; done: (thumbnail: string | undefined) => void }>();
  private nextId = 1;

  constructor(private readonly emit: Emit) {}

  connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  info(): Client | undefined {
    return this.connected() ? this.client : undefined;
  }

  /** Takes a freshly accepted socket; a live one is replaced. */
  attach(ws: WebSocket): void {
    const previous = this.ws;
    this.ws = ws;
    const now = new Date().toISOString();
    this.client = { version: '?', userAgent: '?', connectedAt: now, lastSeenAt: now };
    if (previous) {
      this.emit('browser.replaced', { reason: 'a newer extension connection replaced the previous one' });
      this.drop(previous, CLOSE_REPLACED, 'replaced by a newer extension connection');
    }
    this.emit('browser.connected', {});
    ws.on('message', (data) => this.onMessage(ws, data));
    ws.on('close', () => this.onClose(ws));
    ws.on('error', () => ws.terminate());
  }

  /** Drops the live connection (token rotated, engine closing). */
  disconnect(code: number, reason: string): void {
    if (this.ws) this.drop(this.ws, code, reason);
  }

  request(op: string, args: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<BridgeAnswer> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new EngineError(503, NOT_CONNECTED));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(entry.timer);
        this.pending.delete(id);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(new Error('stopped'));
      };
      const entry: Pending = {
        ws,
        timer: setTimeout(() => {
          done();
          reject(new EngineError(504, `the browser did not answer ${op} within ${Math.round(options.timeoutMs / 1000)} s; is the tab still open?`));
        }, options.timeoutMs),
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      };
      this.pending.set(id, entry);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      ws.send(JSON.stringify({ id, op, args }));
    });
  }

  private onMessage(ws: WebSocket, data: RawData): void {
    let msg: ExtensionMessage;
    try {
      msg = JSON.parse(String(data)) as ExtensionMessage;
    } catch {
      return;
    }
    if (ws === this.ws && this.client) this.client.lastSeenAt = new Date().toISOString();
    if ('type' in msg) {
      if (msg.type === 'ping') ws.send('{"type":"pong"}');
      else if (msg.type === 'thumbnail') {
        const follower = this.following.get(msg.id);
        if (follower?.ws === ws) follower.done(typeof msg.thumbnail === 'string' ? msg.thumbnail : undefined);
      } else if (msg.type === 'hello' && ws === this.ws && this.client) {
        this.client.version = String(msg.version).slice(0, 40);
        this.client.userAgent = String(msg.userAgent).slice(0, 300);
      }
      return;
    }
    const reply = msg as BridgeResponse;
    const entry = this.pending.get(reply.id);
    if (!entry || entry.ws !== ws) return;
    if (reply.ok) entry.resolve({ result: reply.result, ms: reply.ms ?? 0, ...(reply.result.thumbnailFollows ? { thumbnail: this.follow(ws, reply.id) } : {}) });
    else entry.reject(new EngineError(422, String(reply.error))); // the browser's own sentence, for the model
  }

  /** The thumbnail frame that follows answer `id`; undefined if the socket closes or it is late. */
  private follow(ws: WebSocket, id: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), LIMITS.browserActionTimeoutMs);
      const done = (thumbnail: string | undefined) => {
        clearTimeout(timer);
        this.following.delete(id);
        resolve(thumbnail);
      };
      this.following.set(id, { ws, done });
    });
  }

  private onClose(ws: WebSocket): void {
    for (const [, follower] of this.following) if (follower.ws === ws) follower.done(undefined);
    for (const entry of [...this.pending.values()]) if (entry.ws === ws) entry.reject(new EngineError(503, 'the browser extension disconnected before answering; try again once it reconnects'));
    if (this.ws !== ws) return;
    this.ws = undefined;
    this.client = undefined;
    this.emit('browser.disconnected', {});
  }

  private drop(ws: WebSocket, code: number, reason: string): void {
    if (this.ws === ws) {
      this.ws = undefined;
      this.client = undefined;
      this.emit('browser.disconnected', { reason });
    }
    for (const entry of [...this.pending.values()]) if (entry.ws === ws) entry.reject(new EngineError(503, `the browser extension was disconnected (${reason})`));
    ws.close(code, reason);
    // A socket that does not finish the closing handshake is cut.
    setTimeout(() => ws.terminate(), 1000).unref();
  }
}
