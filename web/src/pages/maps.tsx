/**
 * Dashboards and atlases: the list of each, and the selected one's page as the engine renders it
 * (its self-contained HTML document, in a frame), with Build; "Map a folder" makes an atlas's
 * standard brief from the code alone.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead, ago } from '../ui';

type Item = { kind: 'dashboard' | 'atlas'; id: string; name: string; note: string; error?: string };

export function MapsPage() {
  const items = useSignal<Item[]>([]);
  const current = useSignal<Item | null>(null);
  const scope = useSignal('');
  const error = useSignal<string | null>(null);
  const version = useSignal(0);
  const load = async () => {
    const [d, a] = await Promise.all([get<{ dashboards: any[] }>('/api/dashboards').catch(() => ({ dashboards: [] })), get<{ atlases: any[] }>('/api/atlas').catch(() => ({ atlases: [] }))]);
    items.value = [
      ...d.dashboards.map((x): Item => ({ kind: 'dashboard', id: x.id, name: x.name ?? x.id, note: x.error ? 'cannot be read' : x.building ? 'building…' : x.lastBuild ? `${x.lastBuild.status === 'completed' ? 'built' : `build ${x.lastBuild.status}`} ${ago(Date.parse(x.lastBuild.at))}` : 'never built', error: x.error })),
      ...a.atlases.map((x): Item => ({ kind: 'atlas', id: x.id, name: x.name ?? x.id, note: x.error ? 'cannot be read' : `${x.units ?? 0} units${x.stale ? ` · ${x.stale} stale` : ''}${x.building ? ' · building…' : ''}`, error: x.error })),
    ];
  };
  useEffect(() => void load().catch((e) => (error.value = sentence(e))), [epoch.value]);
  const base = (i: Item) => (i.kind === 'dashboard' ? `/api/dashboards/${encodeURIComponent(i.id)}` : `/api/atlas/${encodeURIComponent(i.id)}`);
  const build = async (i: Item) => {
    error.value = null;
    await post(`${base(i)}/run`);
    await load();
  };
  const mapFolder = async () => {
    error.value = null;
    const r = await post<{ id: string }>('/api/atlas/standard', { scope: scope.value.trim() });
    await load();
    current.value = items.value.find((i) => i.kind === 'atlas' && i.id === r.id) ?? null;
    version.value++;
  };
  const section = (kind: Item['kind'], title: string) => (
    <>
      <div class="muted small section-title">{title}</div>
      {items.value.filter((i) => i.kind === kind).map((i) => (
        <a href="#" data-map={`${i.kind}:${i.id}`} class={`list-item ${current.value?.kind === i.kind && current.value.id === i.id ? 'active' : ''}`} onClick={(e) => (e.preventDefault(), (current.value = i))}>
          <span class="grow">
            <span class="item-title">{i.name}</span>
            <span class="muted small">{i.note}</span>
          </span>
        </a>
      ))}
      {!items.value.some((i) => i.kind === kind) && <Empty>None yet.</Empty>}
    </>
  );
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Dashboards and maps" />
        {section('dashboard', 'Dashboards')}
        {section('atlas', 'Code maps')}
        <div class="row">
          <input class="grow" placeholder="folder to map, e.g. src" value={scope.value} onInput={(e) => (scope.value = (e.target as HTMLInputElement).value)} aria-label="folder to map" />
          <Action onClick={mapFolder} onError={(m) => (error.value = m)}>Map a folder</Action>
        </div>
      </div>
      <div class="detail-pane page">
        <ErrorLine error={error.value} />
        {current.value ? (
          current.value.error ? (
            <ErrorLine error={current.value.error} />
          ) : (
            <>
              <div class="row">
                <strong class="grow">{current.value.name}</strong>
                <Action kind="primary" onClick={() => build(current.value!)} onError={(m) => (error.value = m)}>Build</Action>
              </div>
              <iframe class="doc-frame" title={current.value.name} src={`${base(current.value)}/doc?v=${version.value}`} />
            </>
          )
        ) : (
          <Empty>Pick a dashboard or a map, or map a folder from its code (no model needed).</Empty>
        )}
      </div>
    </div>
  );
}
