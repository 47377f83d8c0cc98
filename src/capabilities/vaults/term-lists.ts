const EMPTY = new Int32Array(0);

/**
 * Numbered lists of numbers kept end to end in one typed array, with where each starts and its
 * length: a hundred thousand notes' term lists as three arrays, not a hundred thousand small ones
 * (each a heap object of about 200 bytes besides its numbers). A list set again is appended; the
 * space of old ones is reclaimed when it is more than the lists in use.
 */
export class TermLists {
  private data: Int32Array = new Int32Array(4096);
  private end = 0;
  private inUse = 0;
  private at: Int32Array = new Int32Array(1024);
  /** -1: no list. */
  private len: Int32Array = new Int32Array(1024).fill(-1);

  /** Room for `numbers` more without growing (a restore knows its total). */
  reserve(numbers: number): void {
    if (this.end + numbers > this.data.length) this.data = grow(this.data, this.end + numbers);
  }

  get(id: number): Int32Array {
    return id < this.len.length && this.len[id] > 0 ? this.data.subarray(this.at[id], this.at[id] + this.len[id]) : EMPTY;
  }

  set(id: number, list: ArrayLike<number>): void {
    this.drop(id);
    if (id >= this.len.length) {
      let size = this.len.length;
      while (size <= id) size *= 2;
      this.at = grow(this.at, size);
      const len = new Int32Array(size).fill(-1);
      len.set(this.len);
      this.len = len;
    }
    if (this.end + list.length > this.data.length) {
      if (this.end - this.inUse > this.inUse) this.reclaim();
      if (this.end + list.length > this.data.length) this.data = grow(this.data, Math.max(2 * this.data.length, this.end + list.length));
    }
    this.data.set(list, this.end);
    this.at[id] = this.end;
    this.len[id] = list.length;
    this.end += list.length;
    this.inUse += list.length;
  }

  drop(id: number): void {
    if (id >= this.len.length || this.len[id] < 0) return;
    this.inUse -= this.len[id];
    this.len[id] = -1;
  }

  /** Moves the lists together into an array of their size (after a bulk load). */
  fit(): void {
    this.reclaim(this.inUse);
  }

  private reclaim(size = Math.max(4096, 2 * this.inUse)): void {
    const data = new Int32Array(size);
    let end = 0;
    for (let id = 0; id < this.len.length; id++) {
      if (this.len[id] < 0) continue;
      data.set(this.data.subarray(this.at[id], this.at[id] + this.len[id]), end);
      this.at[id] = end;
      end += this.len[id];
    }
    this.data = data;
    this.end = end;
  }
}

/** A copy of `a` in a larger array of `size` numbers (the rest zero). */
export function grow(a: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}
