/**
 * Dashboards and atlases: the list of each, and the selected one's page as the engine renders it
 * (its self-contained HTML document, in a frame), with Build; New dashboard; "Map a folder" makes an
 * atlas's standard brief from the code alone. Builds, publishes and new definitions (from here, a
 * chat model or a script) show without a reload.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { useLive } from '../live';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead, Time } from '../ui';
import { DashboardForm } from './dashboard-form';

interface Item {
  kind: 'dashboard' | 'atlas';
  id: string;
  name: string;
  building: boolean;
  runId?: string;
  /** Has a page to show (a dashboard built or published at least once, an atlas with a document). */
  hasPage: boolean;
  builtAt?: string | null;
  lastBuild?: { status: string; at: string; error?: string } | null;
  detail?: string;
  byModel?: boolean;
  error?: string;
}

export function MapsPage() {
  const items = useSignal<Item[]>([]);
  const current = useSignal<{ kind: Item['kind']; id: string } | null>(null);
  const creating = useSignal(false);
  const scope = useSignal('');
  const error = useSignal<string | null>(null);
  /** Bumped when the selected page was published again: the frame loads the new one. */
  const version = useSignal(0);
  const load = async () => {
    const [d, a] = await Promise.all([get<{ dashboards: any[] }>('/api/dashboards').catch(() => ({ dashboards: [] })), get<{ atlases: any[] }>('/api/atlas').catch(() => ({ atlases: [] }))]);
    items.value = [
      ...d.dashboards.map((x): Item => ({ kind: 'dashboard', id: x.id, name: x.name ?? x.id, building: !!x.building, runId: x.runId, hasPage: !!x.builtAt, builtAt: x.builtAt, lastBuild: x.lastBuild, byModel: x.author?.by === 'model', error: x.error })),
      ...a.atlases.map((x): Item => ({ kind: 'atlas', id: x.id, name: x.name ?? x.id, building: !!x.building, hasPage: !!x.lastBuild, detail: `${x.units ?? 0} units${x.stale ? ` · ${x.stale} stale` : ''}`, error: x.error })),
    ];
  };
  const reload = () => load().catch((e) => (error.value = sentence(e)));
  useEffect(() => void reload(), [epoch.value]);
  // A build starting or ending, a page published, a definition saved (here, by a chat model, by a script).
  useLive((e) => /^(dashboard|dashboards|atlas)\./.test(e.kind), reload);
  useLive(
    (e) => !!current.value && ((e.kind === 'dashboard.published' && e.dashboard === current.value.id) || (/^atlas\.(build\.completed|saved)$/.test(e.kind) && e.atlas === current.value.id)),
    () => version.value++,
  );
  const base = (i: { kind: Item['kind']; id: string }) => (i.kind === 'dashboard' ? `/api/dashboards/${encodeURIComponent(i.id)}` : `/api/atlas/${encodeURIComponent(i.id)}`);
  const build = async (i: Item) => {
    error.value = null;
    await post(`${base(i)}/run`);
    await load();
  };
  const mapFolder = async () => {
    error.value = null;
    const r = await post<{ id: string }>('/api/atlas/standard', { scope: scope.value.trim() });
    await load();
    current.value = { kind: 'atlas', id: r.id };
    creating.value = false;
    version.value++;
  };
  const shown = current.value ? items.value.find((i) => i.kind === current.value!.kind && i.id === current.value!.id) : undefined;
  const section = (kind: Item['kind'], title: string) => (
    <>
      <div class="muted small section-title pad">{title}</div>
      {items.value.filter((i) => i.kind === kind).map((i) => (
        <a href="#" data-map={`${i.kind}:${i.id}`} class={`list-item ${shown === i ? 'active' : ''}`} onClick={(e) => (e.preventDefault(), (creating.value = false), (current.value = { kind: i.kind, id: i.id }))}>
          <span class="grow">
            <span class="item-title wrap">{i.name}</span>
            <span class="muted small" data-state={i.building ? 'building' : 'idle'}>
              <Status item={i} />
            </span>
          </span>
        </a>
      ))}
      {!items.value.some((i) => i.kind === kind) && <div class="muted small pad">None yet.</div>}
    </>
  );
  return (
    <div class={`split ${shown || creating.value ? 'has-detail' : ''}`}>
      <div class="list-pane">
        <PageHead title="Dashboards">
          <button class="btn" onClick={() => ((creating.value = true), (current.value = null))}>New dashboard</button>
        </PageHead>
        {section('dashboard', 'Dashboards')}
        {section('atlas', 'Code maps')}
        <div class="row">
          <input class="grow-input" placeholder="folder to map, e.g. src" value={scope.value} onInput={(e) => (scope.value = (e.target as HTMLInputElement).value)} aria-label="folder to map" />
          <Action onClick={mapFolder} onError={(m) => (error.value = m)}>Map a folder</Action>
        </div>
      </div>
      <div class="detail-pane page">
        <ErrorLine error={error.value} />
        {creating.value ? (
          <DashboardForm
            onCreated={async (id) => {
              creating.value = false;
              await load();
              current.value = { kind: 'dashboard', id };
            }}
            onCancel={() => (creating.value = false)}
          />
        ) : shown ? (
          shown.error ? (
            <ErrorLine error={shown.error} />
          ) : (
            <>
              <div class="row">
                <strong class="grow wrap">{shown.name}</strong>
                {shown.byModel && <span class="badge" title="A model wrote this definition; its scheduled builds may do only what that model could without asking.">written by a model</span>}
                <Action kind="primary" disabled={shown.building} onClick={() => build(shown)} onError={(m) => (error.value = m)}>{shown.building ? 'Building…' : 'Build'}</Action>
              </div>
              {shown.building && shown.runId && (
                <div class="muted small">
                  Building: <a href={`/runs/${encodeURIComponent(shown.runId)}`}>follow the run</a>. The page appears here when it is published.
                </div>
              )}
              {shown.lastBuild?.error && <ErrorLine error={`The last build failed: ${shown.lastBuild.error}`} />}
              {shown.hasPage ? (
                <iframe class="doc-frame" title={shown.name} src={`${base(shown)}/doc?v=${version.value}`} />
              ) : (
                !shown.building && <Empty>Not built yet. Build asks the model to find out what it should show and publish its first page.</Empty>
              )}
            </>
          )
        ) : (
          <Empty>Pick a dashboard or a map, make a new dashboard, or map a folder from its code (no model needed).</Empty>
        )}
      </div>
    </div>
  );
}

function Status({ item: i }: { item: Item }) {
  if (i.error) return <>cannot be read</>;
  if (i.building) return <>building…</>;
  if (i.kind === 'atlas') return <>{i.detail}</>;
  if (i.lastBuild) return <>{i.lastBuild.status === 'completed' ? 'built' : `build ${i.lastBuild.status}`} <Time ts={i.lastBuild.at} /></>;
  if (i.builtAt) return <>published <Time ts={i.builtAt} /></>;
  return <>never built</>;
}
