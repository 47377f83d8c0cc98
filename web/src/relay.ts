/**
 * The /m/ page over the relay (docs/relay.md): opened with `#relay=<pairing code>` (the QR code's
 * link; a fragment never reaches any server), it pairs once with the engine through the broker and
 * keeps the paired device in this browser's storage (and, in IndexedDB, the last frame counter it
 * accepted, so a reload does not reopen replays). From then on every request and the event
 * stream go sealed through the broker (src/capabilities/relay/phone-client.ts, the same code the
 * engine's tests speak), so the page works from anywhere the broker is reachable. Loaded only in
 * relay mode: mqtt.js is most of its weight.
 */
import mqtt from 'mqtt';
import { pairPhone, RelayPhone } from '../../src/capabilities/relay/phone-client';
import { decodeBlob } from '../../src/capabilities/relay/protocol';
import type { Transport } from './api';
import { forgetDevice, keepDevice, storedDevice } from './relay-device';
import { browserMarks } from './relay-marks';

const dial = (url: string) => mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 1000, connectTimeout: 8000, clean: true });

/**
 * Pairs from a code (stored for the next visits) or reuses the stored device; resolves with the
 * transport. `onRefused` hears of each frame refused as replayed or altered (the mark of the last
 * accepted one is kept across reloads: relay-marks.ts).
 */
export async function relayTransport(code: string | null, onForgotten: (reason: string) => void, onRefused: () => void): Promise<Transport | null> {
  let device = storedDevice();
  if (code) {
    const blob = decodeBlob(code);
    const client = dial(blob.url);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', (e) => reject(new Error(`the relay broker did not accept the connection: ${e.message}`)));
    });
    device = await pairPhone(client, code, { name: navigator.userAgent.match(/\(([^;)]+)/)?.[1] ?? 'phone' });
    keepDevice(device);
    client.end(true);
  }
  if (!device) return null;
  const client = dial(device.url);
  const phone = new RelayPhone(client, device, undefined, browserMarks);
  phone.onRefused = onRefused;
  phone.onBye = (reason) => {
    forgetDevice();
    onForgotten(reason);
  };
  await phone.start();
  return {
    request: (method, path, body) => phone.request(method, path, body),
    events(onEvent, closed) {
      const stop = phone.watch((events) => events.forEach(onEvent));
      const lost = () => closed();
      client.once('offline', lost);
      return () => {
        client.removeListener('offline', lost);
        stop();
      };
    },
  };
}
