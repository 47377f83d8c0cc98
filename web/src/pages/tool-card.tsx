/**
 * A tool call in the chat, as a card: what it was asked in a readable form (run_shell its command,
 * file tools their path, others their arguments in short), whether it runs, succeeded or failed (with
 * the error, or the command's exit code), and behind a toggle what it printed while it ran
 * (`shell.output`), an MCP tool's progress, its result as saved with the session, or a file write's
 * diff. Failed calls, diffs and calls watched while they ran are open; the others start closed.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { chatTick, outputOf, type ToolRun } from '../chat-live';
import type { LiveOutput } from '../live-output';
import { short } from '../ui';
// A call as the session's saved messages carry it (GET /api/chat/<id>): the engine's own type.
import type { ChatToolCallView } from '../../../src/capabilities/chat/types';

/** Whether each card is open, by call id: it outlives the card (the list unmounts rows out of view). */
const opened = new Map<string, boolean>();

const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'multi_edit', 'list_dir', 'delete_file', 'move_file', 'copy_file', 'create_dir']);

/** The call's arguments as a person reads them. */
export function summary(tool: string, args: unknown): string {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (tool === 'run_shell' && typeof a.command === 'string') return `$ ${a.command}${a.cwd && a.cwd !== '.' ? `   (in ${a.cwd})` : ''}`;
  if (FILE_TOOLS.has(tool) && typeof a.path === 'string') return a.path + (typeof a.to === 'string' ? ` → ${a.to}` : '');
  if ((tool === 'grep' || tool === 'glob') && a.pattern !== undefined) return `${str(a.pattern)}${a.path ? ` in ${str(a.path)}` : ''}`;
  if (typeof a.url === 'string') return a.url;
  if (typeof a.query === 'string') return a.query;
  if (typeof args === 'string') return args;
  return Object.entries(a)
    .map(([k, v]) => `${k}: ${short(str(v), 60)}`)
    .join(', ');
}

/** `exit 3 ...` on the first line of a run_shell result: the command ran but did not succeed. */
function exitCode(tool: string, result: string | undefined): string | undefined {
  if (tool !== 'run_shell' || !result) return undefined;
  const m = /^exit (\S+)/.exec(result);
  return m && m[1] !== '0' ? m[1] : undefined;
}

export function ToolCard({ saved, live, turnRunning }: { saved?: ChatToolCallView; live?: ToolRun; turnRunning: boolean }) {
  const callId = (live?.callId ?? saved?.callId)!;
  const tool = live?.tool ?? saved?.name ?? '';
  const args = live?.args ?? saved?.args;
  const ok = live?.ok ?? saved?.ok;
  const liveResult = live ? (live.ok === false ? (live.error ?? live.result) : live.result) : undefined;
  const result = saved?.result ?? (liveResult === undefined ? undefined : typeof liveResult === 'string' ? liveResult : JSON.stringify(liveResult, null, 2));
  const diff = saved?.diff ?? live?.diff;
  const printed = live?.output ?? outputOf(callId);
  const output = printed && !printed.empty ? printed : undefined;
  const exit = exitCode(tool, result);
  const state = ok === undefined ? (turnRunning && live ? 'running' : 'unanswered') : ok === false ? 'failed' : exit ? 'exit' : 'done';
  // A card watched while it ran stays open when it ends (no jump under the reader); saved ones start closed.
  if (state === 'running' && !opened.has(callId)) opened.set(callId, true);
  const open = opened.get(callId) ?? (state === 'failed' || state === 'exit' || !!diff);
  const toggle = () => {
    opened.set(callId, !open);
    chatTick.value++; // the list measures the row again
  };
  const size = output ? `${output.lines} lines` : result ? `${countLines(result)} line${countLines(result) === 1 ? '' : 's'}` : '';
  return (
    <div class={`tool-card ${state}`} data-tool={tool} data-call={callId}>
      <button class="tool-head" aria-expanded={open} onClick={toggle}>
        <span class="tool-caret" aria-hidden="true">{open ? '▾' : '▸'}</span>
        <span class="tool-name">{tool}</span>
        <span class="tool-args">{summary(tool, args)}</span>
        <span class="tool-state">
          {state === 'running' && <span class="badge running">running…</span>}
          {state === 'failed' && <span class="badge failed">failed</span>}
          {state === 'exit' && <span class="badge failed">exit {exit}</span>}
          {state === 'unanswered' && <span class="badge interrupted">no result</span>}
          {state === 'done' && !open && size && <span class="muted small">{size}</span>}
          {live?.durationMs !== undefined && <span class="muted small">{fmtMs(live.durationMs)}</span>}
        </span>
      </button>
      {open && (
        <div class="tool-body">
          {state === 'running' && live?.progress && <Progress p={live.progress} />}
          {diff ? (
            <DiffView diff={diff} />
          ) : output ? (
            <OutputView out={output} />
          ) : result !== undefined ? (
            <pre class={`tool-result ${state === 'failed' ? 'error' : ''}`}>{result || '(no output)'}</pre>
          ) : state === 'running' ? (
            <div class="muted small">waiting for output…</div>
          ) : state === 'unanswered' ? (
            <div class="muted small">The turn ended before this call answered (stopped or interrupted).</div>
          ) : null}
          {live?.thumbnail && <img class="tool-thumb" src={live.thumbnail} alt={`the tab after ${tool}`} />}
        </div>
      )}
    </div>
  );
}

const fmtMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

function Progress({ p }: { p: NonNullable<ToolRun['progress']> }) {
  return (
    <div class="tool-progress small">
      {p.total ? <progress max={p.total} value={p.progress} /> : null}
      <span class="muted">
        {p.total ? `step ${p.progress} of ${p.total}` : `progress ${p.progress}`}
        {p.message ? `: ${p.message}` : ''}
      </span>
    </div>
  );
}

/** A unified diff, a line a row, coloured by what it does. */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  return (
    <pre class="diff tool-diff" data-diff>
      {lines.map((l, i) => (
        <div key={i} class={l.startsWith('+++') || l.startsWith('---') ? 'meta' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : ''}>
          {l || ' '}
        </div>
      ))}
    </pre>
  );
}

/**
 * What a call prints, drawn outside Preact's render: its last OUTPUT_DRAWN_LINES lines once, then
 * what arrives is appended at most once a frame as a block of its own, so the browser lays out only
 * the new block; the oldest blocks leave as new ones come, as a terminal's scrollback does, and
 * "Show all" draws everything kept. The view follows the end while the reader is at the end.
 */
function OutputView({ out }: { out: LiveOutput }) {
  const pre = useRef<HTMLPreElement>(null);
  const [all, setAll] = useState(false);
  useLayoutEffect(() => {
    const el = pre.current!;
    let hidden = 0; // lines kept but not drawn (the earliest)
    const note = document.createElement('div');
    note.className = 'output-note';
    const noteText = document.createElement('span');
    const showAll = document.createElement('button');
    showAll.className = 'btn plain small';
    showAll.textContent = 'Show all';
    showAll.onclick = () => setAll(true);
    note.append(noteText, ' ', showAll);
    const renote = () => {
      const dropped = out.dropped ? ` (and ${out.dropped} characters before them, not kept)` : '';
      noteText.textContent = hidden ? `[${hidden} earlier lines not shown${dropped}]` : out.dropped ? `[${out.dropped} earlier characters not kept]` : '';
      showAll.hidden = !hidden;
      note.hidden = !hidden && !out.dropped;
    };
    const blocks: Array<{ div: HTMLDivElement; lines: number }> = [];
    let drawn = 0;
    const block = (text: string) => {
      const div = document.createElement('div');
      div.textContent = text;
      el.appendChild(div);
      const lines = countLines(text);
      blocks.push({ div, lines });
      drawn += lines;
    };
    el.textContent = '';
    el.appendChild(note);
    const text = out.text();
    const cut = all ? 0 : tailStart(text, OUTPUT_DRAWN_LINES);
    hidden = countLines(text.slice(0, cut));
    block(text.slice(cut));
    renote();
    el.scrollTop = el.scrollHeight;
    let pending = '';
    let frame = 0;
    const flush = () => {
      frame = 0;
      const following = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      block(pending);
      pending = '';
      // The oldest lines leave once a tenth past the lines drawn: whole blocks, then the start of the first (all: never).
      if (!all && drawn > OUTPUT_DRAWN_LINES * 1.1) {
        while (blocks.length > 1 && drawn - blocks[0].lines >= OUTPUT_DRAWN_LINES) {
          const gone = blocks.shift()!;
          gone.div.remove();
          drawn -= gone.lines;
          hidden += gone.lines;
        }
        const first = blocks[0];
        const excess = drawn - OUTPUT_DRAWN_LINES;
        if (excess > 0) {
          const text = first.div.textContent ?? '';
          first.div.textContent = text.slice(tailStart(text, first.lines - excess));
          [first.lines, drawn, hidden] = [first.lines - excess, drawn - excess, hidden + excess];
        }
      }
      renote();
      if (following) el.scrollTop = el.scrollHeight;
    };
    const stop = out.subscribe((added) => {
      pending += added;
      frame ||= requestAnimationFrame(flush);
    });
    return () => {
      stop();
      cancelAnimationFrame(frame);
    };
  }, [out, all]);
  return <pre ref={pre} class="tool-output" data-output />;
}

/** Lines an output view draws (its end); the rest is one click away. */
const OUTPUT_DRAWN_LINES = 1_000;

const countLines = (text: string) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n + (text && !text.endsWith('\n') ? 1 : 0);
};

/** Where the last `lines` lines of `text` start. */
function tailStart(text: string, lines: number): number {
  let at = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let n = 0; n < lines; n++) {
    at = text.lastIndexOf('\n', at - 1);
    if (at < 0) return 0;
  }
  return at + 1;
}
