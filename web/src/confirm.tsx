/**
 * A question before an action that changes files (a revert): the browser's own modal dialog, so
 * nothing behind it takes a click, Escape cancels, and Cancel has the focus. The action's failure
 * stays in the dialog as the engine's sentence.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { sentence } from './api';

export function Confirm(props: { title: string; children: ComponentChildren; action: string; onConfirm: () => Promise<unknown>; onClose: () => void }) {
  const box = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const d = box.current!;
    if (!d.open) d.showModal();
    return () => d.open && d.close();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      box.current!.close();
    } catch (e) {
      setError(sentence(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={box} class="confirm" onClose={props.onClose} aria-labelledby="confirm-title">
      <h2 id="confirm-title">{props.title}</h2>
      <div class="confirm-body">{props.children}</div>
      {error && (
        <div class="error-line" role="alert">
          {error}
        </div>
      )}
      <div class="confirm-actions">
        <button class="btn plain" autoFocus onClick={() => box.current!.close()}>
          Cancel
        </button>
        <button class="btn danger" disabled={busy} onClick={confirm}>
          {busy ? 'Working…' : props.action}
        </button>
      </div>
    </dialog>
  );
}
