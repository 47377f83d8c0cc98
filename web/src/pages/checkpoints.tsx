/**
 * Checkpoints as a person meets them: under a chat turn that changed files, "Revert this turn…"; on
 * the Files page, the list of checkpoints with "Revert…". Both ask first (what goes back, and that the
 * current state is saved so it can be undone), and the list never moves under the pointer: checkpoints
 * made while it is pointed at (a revert makes one) wait behind a "show" button.
 */
import { signal, useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { get, post } from '../api';
import { Confirm } from '../confirm';
import { navigate } from '../router';
import { epoch, onEvent } from '../sync';
import { Action, Time } from '../ui';
import { DiffView } from './tool-card';

export interface Checkpoint {
  sha: string;
  root: string;
  runId: string;
  reason: string;
  ts: number;
}

/** Bumped on each checkpoint.created: the lists read the engine's again. */
const made = signal(0);
onEvent((e) => void (e.kind === 'checkpoint.created' && made.value++));

/** Every kept checkpoint, oldest first, read again when one is made or the page reconnects. */
export function useCheckpoints(): Checkpoint[] {
  const list = useSignal<Checkpoint[]>([]);
  useEffect(() => {
    get<{ checkpoints: Checkpoint[] }>('/api/git/checkpoints').then((r) => (list.value = r.checkpoints), () => {});
  }, [made.value, epoch.value]);
  return list.value;
}

/** A root as a person says it. */
export const rootLabel = (root: string) => (root === 'workspace' ? 'the workspace' : root === '@memory' ? 'agent memory' : `the ${root} folder`);

/** Why a checkpoint was made, in a person's words (the engine's reason names shas and runs). */
const reasonLabel = (reason: string) =>
  reason.startsWith('before revert to ') ? 'saved before a revert' : reason === 'before the first file change of the run' ? 'before a run changed files' : reason;

const listOf = (roots: string[]) => (roots.length < 2 ? roots.join('') : `${roots.slice(0, -1).join(', ')} and ${roots.at(-1)}`);

/** Under the last message of a chat turn that changed files: what it changed, its diff, and revert with a question first. */
export function TurnChanges({ runId, checkpoints }: { runId: string; checkpoints: Checkpoint[] }) {
  const asking = useSignal(false);
  const diff = useSignal<string | null>(null);
  const reverted = useSignal<{ files: number; undo: string[] } | null>(null);
  const roots = [...new Set(checkpoints.map((c) => c.root))].map(rootLabel);
  const toggleDiff = async () => {
    diff.value = diff.value === null ? ((await get<{ diff: string }>(`/api/git/contextual-diff?mode=run&runId=${encodeURIComponent(runId)}`)).diff || 'No difference now.') : null;
  };
  return (
    <div class="turn-changes small" data-turn-changes={runId}>
      {reverted.value ? (
        <>
          <span>
            Reverted {reverted.value.files} file{reverted.value.files === 1 ? '' : 's'} to how they were before this turn.
          </span>
          <Action
            onClick={async () => {
              for (const sha of reverted.value!.undo) await post('/api/checkpoints/revert', { sha });
              reverted.value = null;
            }}
          >
            Undo the revert
          </Action>
        </>
      ) : (
        <>
          <span class="muted">This turn changed files in {listOf(roots)}.</span>
          <Action onClick={toggleDiff}>{diff.value === null ? 'Show changes' : 'Hide changes'}</Action>
          <button class="btn plain" onClick={() => (asking.value = true)}>
            Revert this turn…
          </button>
        </>
      )}
      {diff.value !== null && !reverted.value && <DiffView diff={diff.value} />}
      {asking.value && (
        <Confirm
          title="Revert the changes of this turn?"
          action="Revert"
          onClose={() => (asking.value = false)}
          onConfirm={async () => {
            const r = await post<{ roots: Array<{ changed: unknown[]; undo: string }> }>('/api/checkpoints/revert-run', { runId });
            reverted.value = { files: r.roots.reduce((n, x) => n + x.changed.length, 0), undo: r.roots.map((x) => x.undo) };
          }}
        >
          The files this turn changed in {listOf(roots)} go back to how they were before it. What they hold now is saved as a checkpoint first, so this can be undone.
        </Confirm>
      )}
    </div>
  );
}

/** The Files page's list: newest first, Revert… asks first, and rows stay put while pointed at. */
export function CheckpointList() {
  const all = useCheckpoints();
  const asking = useSignal<Checkpoint | null>(null);
  const pointed = useSignal(false);
  const shown = useRef<Checkpoint[] | null>(null);
  const latest = all.slice(-30).reverse();
  // New rows join when nobody points at the list and no question is open; until then they wait.
  if (!pointed.value && asking.value === null) shown.current = latest;
  const rows = shown.current ?? latest;
  const waiting = latest.filter((c) => !rows.some((r) => r.sha === c.sha)).length;
  return (
    <div class="checkpoints" onMouseEnter={() => (pointed.value = true)} onMouseLeave={() => (pointed.value = false)}>
      {waiting > 0 && (
        <button class="btn plain small checkpoints-newer" onClick={() => ((shown.current = latest), (pointed.value = false))}>
          {waiting} newer checkpoint{waiting === 1 ? '' : 's'}: show
        </button>
      )}
      {!rows.length && <div class="muted small">None yet: a run makes one when it changes files.</div>}
      {rows.map((c) => (
        <div class="checkpoint" key={c.sha + c.root} data-checkpoint={c.sha}>
          <span class="checkpoint-what small">
            {rootLabel(c.root)} · {reasonLabel(c.reason)} ·{' '}
            <Time ts={c.ts} />{' '}
            {c.runId && (
              <a href={`/runs/${encodeURIComponent(c.runId)}`} onClick={(e) => (e.preventDefault(), navigate(`/runs/${encodeURIComponent(c.runId)}`))}>
                run
              </a>
            )}
          </span>
          <button class="btn plain" onClick={() => (asking.value = c)}>
            Revert…
          </button>
        </div>
      ))}
      {asking.value && (
        <Confirm
          title={`Revert ${rootLabel(asking.value.root)} to this checkpoint?`}
          action="Revert"
          onClose={() => (asking.value = null)}
          onConfirm={() => post('/api/checkpoints/revert', { sha: asking.value!.sha })}
        >
          Every file in {rootLabel(asking.value.root)} goes back to how it was <Time ts={asking.value.ts} /> ({reasonLabel(asking.value.reason)}). What the files hold now is saved
          as a checkpoint first, so this can be undone.
        </Confirm>
      )}
    </div>
  );
}
