/**
 * Whether the person is at the workbench: no push goes out while they are (they see it there).
 * The web workbench reports over its own /events socket, `{"kind":"presence","active":true|false}`:
 * active when its tab is visible and focused, again at most every 30 s while the person types or
 * clicks, inactive when the tab is hidden or loses focus (web/src/presence.ts). The person is present
 * while some socket's last report is active and younger than LIMITS.pushPresenceIdleMs, so a
 * workbench left focused on a desk stops counting after two minutes without input, and a closed or
 * crashed tab stops counting at once (its socket closes).
 */
import { LIMITS } from '../../kernel/limits.js';
import type { PresenceSignal } from './types.js';

export function createPresence(options: { idleMs?: number; now?: () => number; onChange?: (active: boolean) => void } = {}): PresenceSignal & { parse(client: object, text: string): void } {
  const idleMs = options.idleMs ?? LIMITS.pushPresenceIdleMs;
  const now = options.now ?? Date.now;
  /** The time of each socket's last active report (absent: inactive). */
  const lastActive = new Map<object, number>();
  const active = () => {
    const since = now() - idleMs;
    for (const t of lastActive.values()) if (t > since) return true;
    return false;
  };
  // `presence.changed` when a report or a closed socket turns the answer (going idle is not evented).
  const changing = (change: () => void) => {
    const before = active();
    change();
    const after = active();
    if (after !== before) options.onChange?.(after);
  };
  const report = (client: object, on: boolean) => changing(() => (on ? lastActive.set(client, now()) : lastActive.delete(client)));
  return {
    report,
    drop: (client) => changing(() => lastActive.delete(client)),
    active,
    /** A frame a client sent on /events; anything but a presence report is ignored. */
    parse(client, text) {
      if (text.length > 200) return;
      try {
        const frame = JSON.parse(text) as { kind?: unknown; active?: unknown };
        if (frame?.kind === 'presence' && typeof frame.active === 'boolean') report(client, frame.active);
      } catch {
        // not JSON: ignored, as every client frame was before presence
      }
    },
  };
}
