/**
 * A list that mounts only the rows in view (plus a margin), for sessions of thousands of messages:
 * rows have their own heights, measured once mounted and remembered by key; rows never seen use an
 * estimate. Pinned to the bottom while the reader is at the bottom (a chat that streams).
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

interface Props<T> {
  items: T[];
  keyOf: (item: T) => string;
  render: (item: T) => ComponentChildren;
  /** A row's height before it was measured: a number, or one guessed from the item (fewer re-measures when rows differ). */
  estimate?: number | ((item: T) => number);
  /** Rows mounted above and below the visible ones. */
  overscan?: number;
  class?: string;
  /** Starts at, and follows, the bottom (chat). */
  bottom?: boolean;
  /** Anything that changes the rows' content without changing `items` (streamed text). */
  tick?: unknown;
  /** Called while the reader is near the top (a chat pages in older messages, which keep the reader's place). */
  onNearTop?: () => void;
}

export function VirtualList<T>({ items, keyOf, render, estimate = 64, overscan = 8, class: cls, bottom, tick, onNearTop }: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const guess = typeof estimate === 'number' ? () => estimate : estimate;
  const heightOf = (item: T) => heights.current.get(keyOf(item)) ?? guess(item);
  const atBottom = useRef(!!bottom);
  const [, setVersion] = useState(0);
  const [view, setView] = useState({ top: 0, height: 800 });
  // A row that changes height by itself (a tool card's output growing, markdown drawn once loaded) is measured again.
  const rowSizes = useRef<ResizeObserver>();
  /** The rows it watches: a row scrolled out (unmounted) is let go, else the observer would hold it for the list's life. */
  const watched = useRef(new Set<Element>());
  /** The row at the top of the view and how far into it the view starts: kept in place when rows change above it. */
  const anchor = useRef<{ key: string; delta: number } | null>(null);
  const nearTop = useRef(onNearTop);
  nearTop.current = onNearTop;
  /** The anchor at `top` by the heights the list knows (the same sums its padding uses, so restoring it never drifts). */
  const anchorAt = (top: number) => {
    let y = 0;
    for (const it of items) {
      const h = heightOf(it);
      if (y + h > top) return { key: keyOf(it), delta: top - y };
      y += h;
    }
    return null;
  };
  const latest = useRef(anchorAt);
  latest.current = anchorAt;

  const offsets = new Array<number>(items.length + 1);
  offsets[0] = 0;
  for (let i = 0; i < items.length; i++) offsets[i + 1] = offsets[i] + heightOf(items[i]);
  const total = offsets[items.length];
  // The first row whose bottom passes the top of the view (binary search).
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= view.top) lo = mid + 1;
    else hi = mid;
  }
  const start = Math.max(0, lo - overscan);
  let end = lo;
  while (end < items.length && offsets[end] < view.top + view.height) end++;
  end = Math.min(items.length, end + overscan);

  useLayoutEffect(() => {
    const el = box.current!;
    let changed = false;
    for (const row of watched.current) {
      if (row.isConnected) continue;
      rowSizes.current?.unobserve(row);
      watched.current.delete(row);
    }
    for (const row of el.querySelectorAll<HTMLElement>(':scope > .vl-inner > [data-row]')) {
      if (rowSizes.current && !watched.current.has(row)) {
        rowSizes.current.observe(row);
        watched.current.add(row);
      }
      const key = row.dataset.row!;
      const h = row.getBoundingClientRect().height;
      if (h && heights.current.get(key) !== h) {
        heights.current.set(key, h);
        changed = true;
      }
    }
    if (atBottom.current) el.scrollTop = el.scrollHeight;
    else if (anchor.current) {
      // Rows put in front (older messages) or measured above the view move the reader's row: put it back.
      const { key, delta } = anchor.current;
      const at = items.findIndex((it) => keyOf(it) === key);
      let y = 0;
      for (let i = 0; i < at; i++) y += heightOf(items[i]);
      if (at >= 0 && Math.abs(el.scrollTop - (y + delta)) >= 1) {
        el.scrollTop = y + delta;
        setView({ top: el.scrollTop, height: el.clientHeight || 800 });
        changed = true;
      }
    }
    if (changed) setVersion((v) => v + 1);
    else anchor.current = anchorAt(el.scrollTop);
  });

  useLayoutEffect(() => {
    const el = box.current!;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight || 800 });
    const onScroll = () => {
      atBottom.current = !!bottom && el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      anchor.current = latest.current(el.scrollTop);
      measure();
      if (el.scrollTop < NEAR_TOP_PX) nearTop.current?.();
    };
    measure();
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    rowSizes.current = new ResizeObserver(() => setVersion((v) => v + 1));
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
      rowSizes.current?.disconnect();
      watched.current.clear();
    };
  }, []);

  void tick;
  return (
    <div ref={box} class={`vl ${cls ?? ''}`}>
      <div class="vl-inner" style={{ paddingTop: offsets[start], paddingBottom: total - offsets[end] }}>
        {items.slice(start, end).map((item) => {
          const key = keyOf(item);
          return (
            <div key={key} data-row={key}>
              {render(item)}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** How close to the top the reader is when older rows are asked for. */
const NEAR_TOP_PX = 600;
