/**
 * The bodies of notes searches showed lately, for the snippets of the searches that follow (issue
 * 42). The index keeps no note text (its heap at 100 000 notes), so a search reads each hit's note
 * again through the fenced reader: the open, the proof of where the file is, the read, about 40-90 µs
 * a note on the bench machine, 20 a search. Searches come in runs that show the same notes (a word
 * typed a letter at a time, a query asked again), so the last ones shown are kept, within a bound,
 * and only for the version of the note the index holds (its size and time): an edit, seen by the
 * index, is read again. Nothing is kept until a search shows it, so an idle engine holds none.
 */
export interface Version {
  mtimeMs: number;
  size: number;
}

export class ShownBodies {
  private readonly kept = new Map<string, Version & { body: string }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  /** The body kept for `rel` at `version`, or undefined (never kept, pushed out, or another version). */
  get(rel: string, version: Version): string | undefined {
    const hit = this.kept.get(rel);
    if (!hit) return undefined;
    if (hit.mtimeMs !== version.mtimeMs || hit.size !== version.size) {
      this.delete(rel);
      return undefined;
    }
    // Most recently shown last: the first in the map is the first pushed out.
    this.kept.delete(rel);
    this.kept.set(rel, hit);
    return hit.body;
  }

  set(rel: string, version: Version, body: string): void {
    this.delete(rel);
    if (body.length > this.maxChars) return;
    this.kept.set(rel, { mtimeMs: version.mtimeMs, size: version.size, body });
    this.chars += body.length;
    for (const [oldest] of this.kept) {
      if (this.chars <= this.maxChars) break;
      this.delete(oldest);
    }
  }

  delete(rel: string): void {
    const hit = this.kept.get(rel);
    if (!hit) return;
    this.kept.delete(rel);
    this.chars -= hit.body.length;
  }
}
