/**
 * Settings > Phone: turn the relay on with a broker's WebSocket address, show the one-time pairing
 * QR code (its link carries the code in the fragment), allow or forbid a phone to start work, and
 * forget paired phones (docs/relay.md).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch, onEvent } from '../sync';
import { Action, copyText, ErrorLine, Time } from '../ui';

interface RelayStatus {
  enabled: boolean;
  state: 'off' | 'connecting' | 'connected';
  url: string | null;
  app: string | null;
  remoteStart: boolean;
  error: string | null;
  pairing: { blob: string; link: string } | null;
  devices: Array<{ id: string; name: string; pairedAt: number; lastSeenAt: number | null }>;
}

export function PhoneRelay() {
  const status = useSignal<RelayStatus | null>(null);
  const error = useSignal<string | null>(null);
  const url = useSignal('');
  const app = useSignal('');
  const qr = useSignal('');
  const copied = useSignal(false);
  const reload = () =>
    get<RelayStatus>('/api/relay').then((s) => {
      status.value = s;
      error.value = null;
      if (!url.value && s.url) url.value = s.url;
      if (!app.value && s.app) app.value = s.app;
    }, (e) => (error.value = sentence(e)));
  useEffect(() => void reload(), [epoch.value]);
  // A phone pairing spends the code: show the next one. Connecting takes a moment: look again until it settles.
  useEffect(() => onEvent((e) => void (e.kind.startsWith('relay.') && reload())), []);
  useEffect(() => {
    if (status.value?.state !== 'connecting') return;
    const t = setTimeout(() => void reload(), 1000);
    return () => clearTimeout(t);
  }, [status.value]);
  const link = status.value?.pairing?.link;
  useEffect(() => {
    copied.value = false;
    if (!link) return void (qr.value = '');
    // The QR encoder is loaded when there is a code to draw: it is not part of the first load.
    import('qrcode')
      .then((m) => (m.default ?? m).toString(link, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }))
      .then((svg) => (qr.value = svg), (e) => (error.value = sentence(e)));
  }, [link]);

  const s = status.value;
  return (
    <section class="card" id="phone" data-section="phone">
      <h2>Phone</h2>
      <p class="muted small">
        Approve and stop work from your phone, from anywhere: the engine connects out to an MQTT broker you run or rent, and the phone talks to it
        through the broker, end-to-end encrypted. The broker's operator sees only ciphertext on random topics.
      </p>
      <ErrorLine error={error.value} />
      <div class="row">
        <input class="grow" placeholder="wss://broker.example.com/mqtt" aria-label="broker address" value={url.value} onInput={(e) => (url.value = (e.target as HTMLInputElement).value)} />
        <Action kind="primary" onClick={async () => (status.value = await post<RelayStatus>('/api/relay/enable', { url: url.value.trim(), app: app.value.trim() || null }))}>
          {s?.enabled ? 'Reconnect' : 'Turn on'}
        </Action>
        {s?.enabled && <Action onClick={async () => (status.value = await post<RelayStatus>('/api/relay/disable'))}>Turn off</Action>}
      </div>
      <div class="row small">
        <input class="grow" placeholder="where the phone opens the app (optional): https://phone.example.com" aria-label="phone app address" value={app.value} onInput={(e) => (app.value = (e.target as HTMLInputElement).value)} />
      </div>
      {s && (
        <div class="small" data-relay-state={s.state}>
          Relay: <span class={`badge ${s.state === 'connected' ? 'completed' : s.state === 'off' ? '' : 'running'}`}>{s.state}</span>
          {s.error && <span class="error"> {s.error}</span>}
        </div>
      )}
      {s?.pairing && s.state === 'connected' && qr.value && (
        <div class="pairing">
          <div class="qr" data-qr dangerouslySetInnerHTML={{ __html: qr.value }} />
          <div class="small muted pairing-text">
            Scan with the phone's camera to pair it, or open this link on the phone (send it to yourself; it works once):
            <div class="row">
              <code class="grow wrap" data-pairing-link>{link}</code>
              <Action onClick={() => copyText(link!).then(() => (copied.value = true))}>{copied.value ? 'Copied' : 'Copy'}</Action>
            </div>
            Each code pairs one phone; a new one appears after.
            {/^http:\/\/(127\.|localhost|\[::1\])/.test(link ?? '') && (
              <div data-hint="app">The code's link points at this computer's loopback address, which a phone cannot open: give the address where the phone opens the app above (docs/relay.md).</div>
            )}
          </div>
        </div>
      )}
      {s && (
        <label class="row small">
          <input type="checkbox" checked={s.remoteStart} onChange={(e) => post('/api/relay/remote-start', { enabled: (e.target as HTMLInputElement).checked }).then(reload, (err) => (error.value = sentence(err)))} />
          a paired phone may start work (off: it may approve and stop only)
        </label>
      )}
      {s?.devices.map((d) => (
        <div class="row" key={d.id} data-device={d.id}>
          <span class="grow">
            <strong>{d.name}</strong> <span class="muted small">paired <Time ts={d.pairedAt} />{d.lastSeenAt ? <> · seen <Time ts={d.lastSeenAt} /></> : null}</span>
          </span>
          <Action kind="danger" onClick={async () => (await post(`/api/relay/devices/${encodeURIComponent(d.id)}/unpair`), reload())}>Unpair</Action>
        </div>
      ))}
    </section>
  );
}
