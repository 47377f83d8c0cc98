/** The workbench: a rail of pages on the left, the page on the right, the connection at the bottom. */
import { ChatPage } from './pages/chat';
import { ApprovalsPage } from './pages/approvals';
import { RunsPage } from './pages/runs';
import { WorkflowsPage } from './pages/workflows';
import { FilesPage } from './pages/files';
import { VaultsPage } from './pages/vaults';
import { BoardsPage } from './pages/boards';
import { DatabasesPage } from './pages/databases';
import { MapsPage } from './pages/maps';
import { SettingsPage } from './pages/settings';
import { post } from './api';
import { match, path } from './router';
import { connection, gates, notifications, prompts, runs, status } from './sync';

const PAGES = [
  { href: '/chat', label: 'Chat', icon: '◐' },
  { href: '/approvals', label: 'Approvals', icon: '✓' },
  { href: '/runs', label: 'Runs', icon: '▶' },
  { href: '/workflows', label: 'Workflows', icon: '⋔' },
  { href: '/files', label: 'Files', icon: '▤' },
  { href: '/vaults', label: 'Vaults', icon: '✎' },
  { href: '/boards', label: 'Boards', icon: '▦' },
  { href: '/maps', label: 'Dashboards', icon: '◫' },
  { href: '/databases', label: 'Databases', icon: '⛁' },
  { href: '/settings', label: 'Settings', icon: '⚙' },
];

function Page() {
  const p = path.value === '/' ? '/chat' : path.value;
  let m: Record<string, string> | null;
  if ((m = match('/chat/:id', p))) return <ChatPage sessionId={m.id} />;
  if (match('/chat', p)) return <ChatPage />;
  if (match('/approvals', p)) return <ApprovalsPage />;
  if ((m = match('/runs/:id', p))) return <RunsPage runId={m.id} />;
  if (match('/runs', p)) return <RunsPage />;
  if ((m = match('/workflows/:id', p))) return <WorkflowsPage id={m.id} />;
  if (match('/workflows', p)) return <WorkflowsPage />;
  if ((m = match('/files/*', p))) return <FilesPage file={m['*']} />;
  if (match('/files', p)) return <FilesPage />;
  if (match('/vaults', p)) return <VaultsPage />;
  if ((m = match('/boards/:project/:key', p))) return <BoardsPage project={m.project} card={m.key} />;
  if (match('/boards', p)) return <BoardsPage />;
  if (match('/maps', p)) return <MapsPage />;
  if (match('/databases', p)) return <DatabasesPage />;
  if (match('/settings', p)) return <SettingsPage />;
  return <div class="page">No page at {p}. <a href="/chat">Open the chat</a>.</div>;
}

export function App() {
  const waiting = gates.value.length + prompts.value.length;
  const live = runs.value.filter((r) => r.status === 'running').length;
  const current = path.value === '/' ? '/chat' : path.value;
  const noProvider = status.value && !status.value.provider;
  return (
    <div class="shell">
      <nav class="rail" aria-label="pages">
        <div class="brand" title={status.value ? `engine ${status.value.version}` : ''}>Workbench</div>
        {PAGES.map((pg) => (
          <a href={pg.href} class={`rail-item ${current.startsWith(pg.href) ? 'active' : ''}`}>
            <span class="icon" aria-hidden="true">{pg.icon}</span>
            <span class="label">{pg.label}</span>
            {pg.href === '/approvals' && waiting > 0 && <span class="count" data-count="approvals">{waiting}</span>}
            {pg.href === '/runs' && live > 0 && <span class="count live">{live}</span>}
          </a>
        ))}
        <div class="rail-foot">
          {notifications.value.unreadCount > 0 && <Notifications />}
          <div class={`conn ${connection.value}`} data-connection={connection.value}>
            <span class="dot" /> {connection.value === 'live' ? 'connected' : connection.value === 'offline' ? 'reconnecting…' : 'connecting…'}
          </div>
        </div>
      </nav>
      <main class="main">
        {noProvider && !current.startsWith('/settings') && (
          <div class="banner">No model provider is configured yet. <a href="/settings">Add one in Settings</a> to chat.</div>
        )}
        <Page />
      </main>
    </div>
  );
}

/** The unread notifications; a click opens its link (e.g. /runs/<id>) and marks it read. */
function Notifications() {
  const unread = notifications.value.notifications.filter((n) => !n.read).slice(0, 3);
  const read = (id: string) => {
    notifications.value = { ...notifications.value, notifications: notifications.value.notifications.map((n) => (n.id === id ? { ...n, read: true } : n)) };
    void post('/api/notifications/read', { id }).catch(() => {});
  };
  return (
    <div class="notes">
      {unread.map((n) => (
        <a class="note-link small" href={n.link ?? '/runs'} key={n.id} title={n.body} data-notification={n.id} onClick={() => read(n.id)}>
          {n.title}
        </a>
      ))}
    </div>
  );
}
