/**
 * A running command's output as it arrives (issue 26): `shell.output {callId, text}` events, at
 * most one per LIMITS.shellOutputEventMs, masked like the final result. Only whole lines go out,
 * and a private-key block only once it is complete, so a secret split across two reads is masked
 * whole instead of leaking in halves. The final tool result still carries the clipped output.
 */
import { LIMITS } from '../../kernel/limits.js';
import type { Emit } from '../../kernel/bus.js';

export interface LiveOutput {
  push(chunk: string): void;
  /** Sends what is left (the last partial line included). */
  end(): void;
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/g;

export function liveOutput(options: { emit: Emit; callId?: string; mask: (text: string) => string }): LiveOutput {
  let pending = '';
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  let last = 0;

  const send = (text: string) => {
    if (!text || sent >= LIMITS.shellOutputEventChars * LIMITS.shellOutputEvents) return;
    sent += text.length;
    options.emit('shell.output', { ...(options.callId ? { callId: options.callId } : {}), text: options.mask(text) });
  };
  const flush = (all: boolean) => {
    timer = undefined;
    last = Date.now();
    const cut = all ? pending.length : safeCut(pending);
    if (cut <= 0) return;
    // One event holds at most LIMITS.shellOutputEventChars: a flood is summarised by its end.
    let text = pending.slice(0, cut);
    pending = pending.slice(cut);
    if (text.length > LIMITS.shellOutputEventChars) {
      const omitted = text.length - LIMITS.shellOutputEventChars;
      text = `[... ${omitted} characters of live output not shown ...]\n${text.slice(omitted)}`;
    }
    send(text);
  };
  return {
    push(chunk) {
      pending += chunk;
      if (timer) return;
      const wait = Math.max(0, last + LIMITS.shellOutputEventMs - Date.now());
      timer = setTimeout(() => flush(false), wait);
      timer.unref();
    },
    end() {
      clearTimeout(timer);
      flush(true);
    },
  };
}

/** How much of `text` may go out now: up to its last newline, and never into an unfinished private-key block. */
function safeCut(text: string): number {
  let cut = text.lastIndexOf('\n') + 1;
  for (const m of text.matchAll(KEY_BEGIN)) {
    const end = text.indexOf('-----END', m.index! + m[0].length);
    if (end < 0 || text.indexOf('-----', end + 8) < 0) cut = Math.min(cut, m.index!);
  }
  // A line longer than a whole event goes out anyway rather than waiting for a newline that may never come.
  if (cut === 0 && text.length > LIMITS.shellOutputEventChars) return text.length - 200;
  return cut;
}
