/**
 * The phone layout at /m/ (seed 000 §4.20): approvals, runs in flight and chat, with the mobile token
 * from the pairing URL (`/m/#token=...`, kept in this browser's storage). It says when the page is not
 * a secure context, since push notifications need HTTPS.
 */
import { render } from 'preact';
import './styles.css';
import { setMobileToken } from './api';
import './chat-live';
import { ApprovalsPage } from './pages/approvals';
import { ChatPage } from './pages/chat';
import { interceptLinks, match, navigate, path } from './router';
import { connect, connection, gates, prompts, runs } from './sync';
import { pushProblem, pushState, startPush, turnOff, turnOn } from './phone-push';
import { ago, Badge, Empty } from './ui';

const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
if (fromHash) {
  localStorage.setItem('engine.mobileToken', fromHash);
  history.replaceState(null, '', location.pathname); // the token leaves the address bar
}
const token = fromHash ?? localStorage.getItem('engine.mobileToken');
setMobileToken(token);
// The pairing URL opened in a tab already on /m/ changes only the fragment: start again with it.
addEventListener('hashchange', () => {
  if (new URLSearchParams(location.hash.slice(1)).get('token')) location.reload();
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
          <div class="muted small">{r.source} · started {ago(r.startedAt)}</div>
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

function Phone() {
  const p = path.value.replace(/\/$/, '') || '/m';
  const waiting = gates.value.length + prompts.value.length;
  let page;
  let m: Record<string, string> | null;
  if ((m = match('/m/chat/:id', p))) page = <ChatPage compact sessionId={m.id} />;
  else if (match('/m/chat', p)) page = <ChatPage compact />;
  else if (match('/m/runs', p)) page = <InFlight />;
  else page = <ApprovalsPage phone />;
  const tab = (href: string, label: string, extra?: number) => (
    <a href={href} class={`tab ${(href === '/m' ? p === '/m' : p.startsWith(href)) ? 'active' : ''}`}>
      {label}
      {extra ? <span class="count">{extra}</span> : null}
    </a>
  );
  return (
    <div class="phone-shell">
      {!window.isSecureContext && <div class="banner">This page is not a secure context (plain HTTP): push notifications need HTTPS.</div>}
      {!token && <div class="banner">No pairing token: open the pairing address the engine printed (it ends in #token=…).</div>}
      {connection.value !== 'live' && token && <div class="banner subtle" data-connection={connection.value}>{connection.value === 'offline' ? 'Reconnecting…' : 'Connecting…'}</div>}
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
if (token) {
  void connect();
  void startPush().catch(() => undefined);
}
