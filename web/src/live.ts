/**
 * Views that stay true: a page that holds its own copy of something (a list of connections, a
 * board) reloads it when an event says it changed, whoever changed it (this page, another window, a
 * model, a script). Bursts (a capture filing ten notes) coalesce into one reload.
 */
import { useEffect, useRef } from 'preact/hooks';
import { onEvent, type EngineEvent } from './sync';

export function useLive(matches: (e: EngineEvent) => boolean, reload: () => unknown, deps: unknown[] = []): void {
  // The latest closures, so a page's current selection is what the event is judged against.
  const latest = useRef({ matches, reload });
  latest.current = { matches, reload };
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onEvent((e) => {
      if (!latest.current.matches(e) || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void latest.current.reload();
      }, 100);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, deps);
}
