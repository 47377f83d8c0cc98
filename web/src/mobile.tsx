/**
 * The phone layout at /m/ (seed 000 §4.20): approvals, runs in flight and chat, with the mobile token
 * from the pairing URL (`/m/#token=...`, kept in this browser's storage). It says when the page is not
 * a secure context, since push notifications need HTTPS. Opened with `#relay=<pairing code>` (the
 * relay's QR code) it runs over the relay instead: every request and the events through the broker.
 */
import { render } from 'preact';
import './styles.css';
import { sentence, setMobileToken, setTransport } from './api';
import { storedDevice, takeRelayCode } from './relay-device';
import { signal } from '@preact/signals';
import './chat-live';
import { ApprovalsPage } from './pages/approvals';
import { ChatPage } from './pages/chat';
import { interceptLinks, match, navigate, path } from './router';
import { connect, connection, gates, prompts, runs } from './sync';
import { pushProblem, pushState, startPush, turnOff, turnOn } from './phone-push';
import { Badge, Empty, Time } from './ui';

const relayCode = takeRelayCode();
const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
if (fromHash) {
  localStorage.setItem('engine.mobileToken', fromHash);
  history.replaceState(null, '', location.pathname); // the token leaves the address bar
}
const token = fromHash ?? localStorage.getItem('engine.mobileToken');
setMobileToken(token);
// Over the relay when opened with its code, or when paired before and no LAN token is at hand.
const viaRelay = relayCode !== null || (!token && storedDevice() !== null);
/** What the relay says while it pairs, fails or was unpaired (null: fine). */
const relayNote = signal<string | null>(viaRelay ? 'Connecting through the relay…' : null);
/** Frames from the relay refused as replayed or altered since the page loaded: the broker is not behaving. */
const refusedFrames = signal(0);
// The pairing URL opened in a tab already on /m/ changes only the fragment: start again with it.
addEventListener('hashchange', () => {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get('token') || h.get('relay')) location.reload();
});

function InFlight() {
  const list = runs.value.filter((r) => r.status === 'running');
  return (
    <div class="page">
      <h1>Running</h1>
      {!list.length && <Empty>Nothing is running.</Empty>}
      {list.map((r) => (
        <div class="card" key={r.runId}>
          <div class="row">
            <strong class="grow">{r.title || r.workflowId || r.runId}</strong>
            <Badge status={r.status} />
          </div>
          <div class="muted small">{r.source} · started <Time ts={r.startedAt} /></div>
        </div>
      ))}
    </div>
  );
}

/** Turning the phone's notifications on and off (shown only where a service worker can run). */
function PushBar() {
  const state = pushState.value;
  if (state === 'unavailable') return null;
  return (
    <div class="push-bar" data-push={state}>
      {state === 'blocked' && <span>Notifications are blocked for this site in the browser's settings.</span>}
      {(state === 'off' || state === 'busy') && (
        <>
          <span class="grow">Get a notification when something waits for you.</span>
          <button class="btn" disabled={state === 'busy'} onClick={() => void turnOn()}>Turn on</button>
        </>
      )}
      {state === 'on' && (
        <>
          <span class="grow">Notifications are on.</span>
          <button class="btn" onClick={() => void turnOff()}>Turn off</button>
        </>
      )}
      {pushProblem.value && <div class="muted small push-problem">{pushProblem.value}</div>}
    </div>
  );
}

/**
 * Without a token or a relay pairing the page knows nothing, so it never says "nothing is waiting":
 * it says it is not paired and how to pair (on this computer, the workbench itself answers).
 */
function NotPaired() {
  const here = /^(localhost|127\.|\[::1\])/.test(location.hostname);
  return (
    <div class="page not-paired" data-unpaired>
      <h1>This phone is not paired</h1>
      <p>No pairing token yet: until it is paired, this page cannot see what waits for you or what runs.</p>
      <ol>
        <li>
          On the computer running the engine, open the workbench's <strong>Settings › Phone</strong>, turn the relay on, and scan the QR code with this phone's camera (or open the link shown beside it on this phone).
        </li>
        <li>
          On the same network: open the pairing address the engine printed when it started (it ends in <code>#token=…</code>).
        </li>
      </ol>
      {here && (
        <p>
          You are on the engine's own computer: the workbench's <a href="/approvals">Approvals</a> page shows everything waiting, no pairing needed.
        </p>
      )}
    </div>
  );
}

function Phone() {
  const p = path.value.replace(/\/$/, '') || '/m';
  const waiting = gates.value.length + prompts.value.length;
  let page;
  let m: Record<string, string> | null;
  if ((m = match('/m/chat/:id', p))) page = <ChatPage compact sessionId={m.id} />;
  else if (match('/m/chat', p)) page = <ChatPage compact />;
  else if (match('/m/runs', p)) page = <InFlight />;
  else page = <ApprovalsPage phone />;
  if (!token && !viaRelay) page = <NotPaired />;
  const tab = (href: string, label: string, extra?: number) => (
    <a href={href} class={`tab ${(href === '/m' ? p === '/m' : p.startsWith(href)) ? 'active' : ''}`}>
      {label}
      {extra ? <span class="count">{extra}</span> : null}
    </a>
  );
  return (
    <div class="phone-shell">
      {!window.isSecureContext && <div class="banner">This page is not a secure context (plain HTTP): push notifications need HTTPS.</div>}
      {relayNote.value && <div class="banner" data-relay>{relayNote.value}</div>}
      {refusedFrames.value > 0 && (
        <div class="banner subtle" data-relay-refused={refusedFrames.value}>
          {refusedFrames.value === 1
            ? 'The relay broker delivered a message this phone had already received (or an altered one); it was refused.'
            : `The relay broker delivered ${refusedFrames.value} messages this phone had already received (or altered ones); they were refused.`}
        </div>
      )}
      {connection.value !== 'live' && (token || viaRelay) && !relayNote.value && <div class="banner subtle" data-connection={connection.value}>{connection.value === 'offline' ? 'Reconnecting…' : 'Connecting…'}</div>}
      {p === '/m' || p.startsWith('/m/?') ? <PushBar /> : null}
      <main class="phone-main">{page}</main>
      <nav class="tabs">
        {tab('/m', 'Approvals', waiting)}
        {tab('/m/runs', 'Running', runs.value.filter((r) => r.status === 'running').length)}
        {tab('/m/chat', 'Chat')}
      </nav>
    </div>
  );
}

const root = document.getElementById('app')!;
interceptLinks(root);
if (location.pathname === '/m') navigate('/m/', true);
render(<Phone />, root);
if (viaRelay) {
  // mqtt.js is most of the relay's weight: a phone on the LAN with its token never loads it.
  import('./relay')
    .then(({ relayTransport }) =>
      relayTransport(
        relayCode,
        (reason) => (relayNote.value = `${reason}. Scan a new QR code to pair again.`),
        () => refusedFrames.value++,
      ),
    )
    .then(
      (t) => {
        if (!t) return;
        setTransport(t);
        relayNote.value = null;
        void connect();
        void startPush().catch(() => undefined);
      },
      (e) => (relayNote.value = sentence(e)),
    );
} else if (token) {
  void connect();
  void startPush().catch(() => undefined);
}
