/**
 * Cron through one library (croner: seconds, time zones, L/W/#) behind both the trigger service and
 * POST /api/cron/preview. Only croner's pattern parser and next-run arithmetic are used; the timers
 * are ours (clock.ts), so tests drive schedules with a test clock instead of waiting.
 */
import { createRequire } from 'node:module';

type CronClass = typeof import('croner').Cron;
let CronCtor: CronClass | undefined;
// Loaded on first use: start-up time is measured and most engines have no schedule.
const Cron = (): CronClass => (CronCtor ??= (createRequire(import.meta.url)('croner') as typeof import('croner')).Cron);

export interface CronSchedule {
  /** The next fire strictly after `from`, or undefined when the pattern never fires again. */
  next(from: number): number | undefined;
  /** Fires in (from, to], at most `cap` counted. */
  countBetween(from: number, to: number, cap?: number): number;
}

/** Parses an expression (5, 6 or 7 fields) in a time zone; throws a sentence saying what to fix. */
export function parseCron(expr: string, timezone?: string): CronSchedule {
  if (typeof expr !== 'string' || !expr.trim()) throw new Error('the cron expression is empty; write e.g. "0 9 * * 1-5" (09:00 on weekdays) or "*/30 * * * * *" (every 30 s)');
  let job: InstanceType<CronClass>;
  try {
    job = new (Cron())(expr.trim(), { paused: true, timezone: timezone || undefined });
    job.nextRun(new Date());
  } catch (err) {
    const msg = (err as Error).message.replace(/^Cron\w*:\s*/, '');
    if (timezone && /timezone/i.test(msg)) throw new Error(`time zone "${timezone}" is not known; use an IANA name such as "Europe/Berlin" or "UTC"`);
    throw new Error(`"${expr}" is not a valid cron expression: ${msg}`);
  }
  return {
    next(from) {
      const d = job.nextRun(new Date(from));
      return d ? d.getTime() : undefined;
    },
    countBetween(from, to, cap = 1_000_000) {
      let n = 0;
      let at = from;
      for (;;) {
        const d = job.nextRun(new Date(at));
        if (!d || d.getTime() > to || n >= cap) return n;
        n++;
        at = d.getTime();
      }
    },
  };
}

export interface CronPreview {
  ok: boolean;
  /** UTC instants (ISO 8601, `Z`). */
  next: string[];
  /** The same fires as wall-clock times in the time zone (the engine machine's when none is given), with their offset. */
  nextLocal: string[];
  /** The zone `nextLocal` is in. */
  timezone?: string;
  description: string;
  error?: string;
}

/** POST /api/cron/preview: the next three fires and a sentence; a bad expression is ok:false, never thrown. */
export function previewCron(expr: unknown, timezone: unknown, now: number): CronPreview {
  try {
    if (typeof expr !== 'string') throw new Error('expr must be a cron expression string, e.g. "0 9 * * 1-5"');
    const tz = typeof timezone === 'string' && timezone ? timezone : undefined;
    const schedule = parseCron(expr, tz);
    const fires: number[] = [];
    let at = now;
    for (let i = 0; i < 3; i++) {
      const n = schedule.next(at);
      if (n === undefined) break;
      fires.push(n);
      at = n;
    }
    const zone = tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    return { ok: true, next: fires.map((n) => new Date(n).toISOString()), nextLocal: fires.map((n) => localIso(n, zone)), timezone: zone, description: describeCron(expr, tz) };
  } catch (err) {
    return { ok: false, next: [], nextLocal: [], description: '', error: (err as Error).message };
  }
}

/** `2026-03-02T10:00:00+01:00`: the wall-clock time in `timezone` with its UTC offset then. */
export function localIso(ms: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMin = Math.round((Date.parse(`${wall}Z`) - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${wall}${offsetMin === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`}`;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A plain-words description of the common shapes; anything else is named field by field. */
export function describeCron(expr: string, timezone?: string): string {
  const parts = expr.trim().split(/\s+/);
  const [sec, min, hour, dom, mon, dow] = parts.length === 5 ? ['0', ...parts] : parts;
  const zone = timezone ? ` (${timezone})` : '';
  const pad = (s: string) => s.padStart(2, '0');
  const every = (f: string, unit: string) => {
    if (f === '*') return `every ${unit}`;
    const step = /^\*\/(\d+)$/.exec(f);
    return step ? `every ${step[1]} ${unit}s` : undefined;
  };
  let when: string;
  if (sec !== '0' && min === '*' && hour === '*') when = every(sec, 'second') ?? `at second ${sec} of every minute`;
  else if (sec === '0' && hour === '*' && min !== '*' && every(min, 'minute')) when = every(min, 'minute')!;
  else if (sec === '0' && min === '*' && hour === '*') when = 'every minute';
  else if (sec === '0' && /^\d+$/.test(min) && hour === '*') when = `at minute ${min} of every hour`;
  else if (/^\d+$/.test(sec) && /^\d+$/.test(min) && /^\d+(,\d+)*$/.test(hour)) when = `at ${hour.split(',').map((h) => `${pad(h)}:${pad(min)}${sec !== '0' ? ':' + pad(sec) : ''}`).join(' and ')}`;
  else when = `at second ${sec}, minute ${min}, hour ${hour}`;
  const days: string[] = [];
  if (dom && dom !== '*' && dom !== '?') days.push(`on day ${dom} of the month`);
  if (mon && mon !== '*') days.push(`in ${/^\d+$/.test(mon) ? MONTHS[Number(mon) - 1] ?? mon : mon}`);
  if (dow && dow !== '*' && dow !== '?') {
    const named = dow.replace(/\d/g, (d) => DAYS[Number(d)]?.slice(0, 3) ?? d);
    days.push(dow === '1-5' ? 'on weekdays' : `on ${named}`);
  }
  return `${when}${days.length ? ' ' + days.join(', ') : ''}${zone}`;
}
