/**
 * What a running tool call prints, as it streams (`shell.output`, several events a second, a flood's
 * worth in total). The chunks are kept here, outside any signal, and a card drawing them is told of
 * each new piece: it appends only that, once a frame (tool-card.tsx), so 10 000 lines cost what each
 * adds, never a re-render of the page or of everything printed so far.
 */

/** Characters kept of one call's output (its end): the engine sends up to 800 000 of a flood. */
export const OUTPUT_KEPT_CHARS = 200_000;

export class LiveOutput {
  private chunks: string[] = [];
  private size = 0;
  /** Characters dropped from the start to keep OUTPUT_KEPT_CHARS. */
  dropped = 0;
  /** Newlines seen in everything pushed (dropped text included). */
  lines = 0;
  private readonly listeners = new Set<(added: string) => void>();

  push(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.size += text.length;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lines++;
    while (this.size > OUTPUT_KEPT_CHARS && this.chunks.length > 1) {
      const gone = this.chunks.shift()!;
      this.size -= gone.length;
      this.dropped += gone.length;
    }
    for (const fn of this.listeners) fn(text);
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /** Everything kept, in one string (a card drawing it from scratch). */
  text(): string {
    if (this.chunks.length > 1) this.chunks = [this.chunks.join('')];
    return this.chunks[0] ?? '';
  }

  /** `fn` gets each new piece; answers the unsubscribe. */
  subscribe(fn: (added: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
