/**
 * Splits a server-sent-event stream into whole events without copying what passes through: the
 * gateway forwards bytes as they come and only looks at the few events that carry usage.
 */
export class SseSplitter {
  private rest = '';

  /** Feeds one chunk; returns the events it completed (each without its blank-line terminator). */
  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const end = nextBoundary(text, start);
      if (end === -1) break;
      events.push(text.slice(start, end));
      start = end + (text.startsWith('\r\n\r\n', end) ? 4 : 2);
    }
    this.rest = text.slice(start);
    return events;
  }

  /** Whatever followed the last complete event (a stream that ended without a blank line). */
  flush(): string {
    const rest = this.rest;
    this.rest = '';
    return rest;
  }
}

function nextBoundary(text: string, from: number): number {
  const lf = text.indexOf('\n\n', from);
  const crlf = text.indexOf('\r\n\r\n', from);
  if (lf === -1) return crlf;
  if (crlf === -1) return lf;
  return Math.min(lf, crlf);
}

/** The JSON of an event's `data:` lines, or undefined for `[DONE]`, comments and non-JSON data. */
export function eventData(event: string): any {
  let data = '';
  for (const line of event.split(/\r?\n/)) {
    if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
  }
  if (!data || data === '[DONE]') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
