/**
 * Reading `runs/index.jsonl` at start without parsing it. A start must know now only which runs a
 * previous engine left running (they become `interrupted`), which shared log segments exist, and
 * whether the index is due to be compacted; a year of runs is tens of thousands of lines, and
 * parsing them all (with the one large read and string that took) was most of what such a start
 * added (bench/scale-brain). So the index is streamed and each line peeked at: its run id from the
 * line's head, whether it says `running` or names a shared log by substring. Only the runs whose
 * last line says `running` are parsed at start; every record comes out of `Unparsed` after the
 * engine listens, or at once when something reads the ledger first (RunLedger.settle).
 */
import { readLineBatches, readText, readTextSync } from './jsonl.js';
import type { RunRecord } from './runs.js';

/** What a start needs of the index, read without parsing a record. */
export interface IndexScan {
  /** Non-blank lines. */
  lines: number;
  /** Distinct runs. */
  runs: number;
  /** The runs whose last line says `running`: their id and that line. */
  running: Map<string, string>;
  /** The shared log names the lines give (validated by the caller like any index field). */
  logs: Set<string>;
}

/**
 * The engine writes each line as `JSON.stringify` of a record whose first key is `runId`: the id is
 * read from the head. Inside a JSON string every quote is escaped, so `"status":"running"` and
 * `"log":"` can only be a top-level key's text (records have no nested `status` or `log`).
 */
const HEAD = '{"runId":"';
const RUNNING = '"status":"running"';
const LOG = /"log":"([^"\\]+)"/;

/** A line's run id, from its head, or parsed when the line was written some other way (by hand, by an older engine). */
function idOf(line: string): string | undefined {
  if (line.startsWith(HEAD)) {
    const id = line.slice(HEAD.length, line.indexOf('"', HEAD.length));
    if (id && !id.includes('\\')) return id;
  }
  const id = parse(line)?.runId;
  return typeof id === 'string' ? id : undefined;
}

const parse = (line: string): RunRecord | undefined => {
  try {
    const value = JSON.parse(line) as RunRecord | null;
    return value && typeof value === 'object' && value.runId ? value : undefined;
  } catch {
    return undefined;
  }
};

/** Streams the index (64 KB at a time, nothing kept but the running runs' lines) and peeks at each line. */
export async function scanIndex(file: string): Promise<IndexScan> {
  const ids = new Set<string>();
  const running = new Map<string, string>();
  const logs = new Set<string>();
  let lines = 0;
  for await (const batch of readLineBatches(file)) {
    for (const line of batch) {
      const id = idOf(line);
      if (!id) continue;
      lines++;
      ids.add(id);
      if (line.includes(RUNNING)) running.set(id, line);
      else running.delete(id);
      const log = LOG.exec(line)?.[1];
      if (log) logs.add(log);
    }
  }
  return { lines, runs: ids.size, running, logs };
}

/** A running run's record from its last line; a line that does not parse is not a record (as in `Unparsed`). */
export const runningRecord = (line: string): RunRecord | undefined => parse(line);

/** Every record of the index, each run's last line that parses winning, in the order runs first appear. */
export function parseIndex(text: string): Map<string, RunRecord> {
  const found = new Map<string, RunRecord>();
  parseLines(text.split('\n'), 0, Infinity, found);
  return found;
}

function parseLines(lines: string[], from: number, max: number, found: Map<string, RunRecord>): number {
  const end = Math.min(lines.length, from + max);
  for (let i = from; i < end; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    const record = parse(line);
    if (record) found.set(record.runId, record);
  }
  return end;
}

/** The index's records not parsed yet: read and parsed a batch at a time, or at once. */
export interface Unparsed {
  /** Reads the index (once). */
  read(): Promise<void>;
  /** Parses up to `max` more lines, reading the index now if `read` has not; true once all are parsed. */
  parse(max: number): boolean;
  /** Every record, once `parse` said true. */
  records(): Iterable<RunRecord>;
}

export function unparsed(file: string): Unparsed {
  let lines: string[] | undefined;
  let next = 0;
  const found = new Map<string, RunRecord>();
  return {
    async read() {
      if (lines) return;
      const text = await readText(file);
      lines ??= text.split('\n');
    },
    parse(max) {
      lines ??= readTextSync(file).split('\n');
      next = parseLines(lines, next, max, found);
      if (next < lines.length) return false;
      lines = [];
      return true;
    },
    records: () => found.values(),
  };
}
