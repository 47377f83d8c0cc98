/** A test clock for workflows (cron, waits): time moves only when the test advances it. */
import type { Clock } from '../../src/capabilities/workflows/clock.js';

export class TestClock implements Clock {
  private timers: Array<{ id: number; at: number; fn: () => void }> = [];
  private ids = 0;
  constructor(private t: number) {}
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.push({ id, at: this.t + Math.max(0, ms), fn });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  /** Moves time forward, firing due timers in order (each at its own instant). */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = target;
  }
  pending(): number {
    return this.timers.length;
  }
}
