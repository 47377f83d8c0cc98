/**
 * The workbench tells the engine whether the person is here, so no phone push goes out for what
 * they see on this screen (docs/push.md). Over the /events socket: `{"kind":"presence","active":
 * true}` when the tab is visible and focused, again at most every 30 s while they type, click or
 * scroll, and `active: false` when the tab is hidden or loses focus. The engine counts a report as
 * stale after two minutes without another, and a closed tab's socket ends its presence at once.
 * Only the workbench reports; the phone layout never does.
 */
import { onSocketOpen, send } from './sync';

const REPEAT_MS = 30_000;
let lastActive = false;
let lastSent = 0;

const activeNow = () => document.visibilityState === 'visible' && document.hasFocus();

function report(force = false): void {
  const active = activeNow();
  const now = Date.now();
  // A change is sent at once; the same "active" again only every REPEAT_MS, "inactive" only once.
  if (!force && active === lastActive && (!active || now - lastSent < REPEAT_MS)) return;
  if (send({ kind: 'presence', active })) {
    lastActive = active;
    lastSent = now;
  }
}

export function reportPresence(): void {
  onSocketOpen(() => report(true));
  addEventListener('focus', () => report());
  addEventListener('blur', () => report());
  document.addEventListener('visibilitychange', () => report());
  for (const kind of ['pointerdown', 'keydown', 'wheel', 'touchstart']) addEventListener(kind, () => report(), { capture: true, passive: true });
}
