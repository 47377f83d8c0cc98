/**
 * The exit mask (src/kernel/redact.ts), which every event, log line, transcript and response passes,
 * against the mask as it was before issue 38 (plain, JSON, URL, reversed, hex and base64 spellings
 * only, kept below as the baseline): what base32, case, rot13 and spaced spellings and the hex-dump
 * decoding cost. Five stored values; the texts the mask meets most (an event's JSON checked with
 * `has`, a shell output chunk, a 64 KB file read) and its worst (a 16 KB `xxd` dump of other bytes,
 * decoded line by line). Rounds alternate ABBA; the figure is texts per second. The stored
 * spellings are found by one Wu-Manber scan (src/kernel/literal-set.ts) where the old mask ran one
 * alternation regex, which is why the common texts got faster, not slower.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redactor } from '../src/kernel/redact.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

/** The mask before issue 38: one pattern of the older spellings. */
class RedactorBefore {
  private pattern: RegExp;
  constructor(values: string[]) {
    const forms = [...new Set(values.flatMap(formsBefore))].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(forms.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  }
  has(text: string): boolean {
    this.pattern.lastIndex = 0;
    return this.pattern.test(text);
  }
  text(text: string): string {
    return text.replace(this.pattern, '***');
  }
}

function formsBefore(value: string): string[] {
  const forms = new Set<string>([value, JSON.stringify(value).slice(1, -1), [...value].reverse().join('')]);
  const encoded = new Set<string>([encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')]);
  const bytes = Buffer.from(value, 'utf8');
  encoded.add(bytes.toString('hex')).add(bytes.toString('hex').toUpperCase());
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64').replace(/=+$/, '');
    const core = b64.slice([0, 2, 3][shift], Math.floor(((shift + bytes.length) * 8) / 6));
    encoded.add(core).add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  for (const f of encoded) if (f.length >= 8 && f !== value) forms.add(f);
  return [...forms];
}

const VALUES = ['sk-proj-4fQ9zLm2Xv8RtY1uW3e', 'hunter2-Database-Pw-19', 'ghp_7Hq2Lm9Xv4RtY1uW3eA8bC5dF0gH', 'Sm1th&Wesson!2024', 'deploy-token-0f3a9c77e1'];
const prose = 'The build finished in 12.3 s; 482 tests passed, 3 skipped. Next: review src/kernel/redact.ts and the docs.\n';
const TEXTS = [
  {
    name: 'event JSON, has()',
    text: JSON.stringify({ kind: 'node.delta', ts: 1764633600000, seq: 4182, runId: 'run-1764633600000-12', nodeId: 'agent', delta: prose.slice(0, 80) }),
    op: 'has' as const,
    reps: 20_000,
  },
  { name: 'shell output 4 KB, text()', text: prose.repeat(40).slice(0, 4096), op: 'text' as const, reps: 2_000 },
  { name: 'file read 64 KB, text()', text: prose.repeat(620).slice(0, 65_536), op: 'text' as const, reps: 150 },
  { name: 'xxd dump 16 KB, text()', text: execFileSync('xxd', [], { input: randomBytes(4096) }).toString(), op: 'text' as const, reps: 100 },
];

const engine = new Redactor();
engine.setValues(VALUES);
const before = new RedactorBefore(VALUES);
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);

/** Texts per second one side masks. */
function measure(side: { has(t: string): boolean; text(t: string): string }, c: (typeof TEXTS)[number]): number {
  const t0 = performance.now();
  let sink = 0;
  for (let i = 0; i < c.reps; i++) sink += c.op === 'has' ? Number(side.has(c.text)) : side.text(c.text).length;
  if (sink < 0) throw new Error('unreachable');
  return c.reps / ((performance.now() - t0) / 1000);
}

console.log(await loadNote());
const rows: Array<Record<string, string>> = [];
for (const c of TEXTS) {
  if (engine.text(c.text) !== c.text) throw new Error(`${c.name}: the bench text holds no secret, yet the mask changed it`);
  const s = await alternate(rounds, { engine: async () => measure(engine, c), before: async () => measure(before, c) }, { warmup: 2 });
  rows.push({ text: c.name, 'mask now, texts/s': describe(s.engine, 0), 'mask before issue 38, texts/s': describe(s.before, 0) });
  // A hex dump is decoded line by line now (the old mask only scanned it): rare in what the engine
  // sends, so it may cost several times the old scan; everything else must stay as fast as before.
  result(`redact ${c.name}`, 'texts/s', s.engine, s.before, { ratioAtLeast: c.name.startsWith('xxd') ? 0.2 : 0.9 });
}
table(rows);
