/**
 * A confirmation dialog for actions that change or lose data. With `typed`, the action stays
 * disabled until the user types that word (a collection's name before a drop). Built on
 * <dialog>, so focus stays inside it and Escape cancels.
 */

'use client';

import { type ReactNode, useCallback, useRef, useState } from 'react';

export interface ConfirmRequest {
  title: string;
  body: ReactNode;
  action: string;
  /** The text the user must type to enable the action. */
  typed?: string;
  danger?: boolean;
}

/** Returns the dialog to render and `ask`, which resolves true when the user confirms. */
export function useConfirm(): [ReactNode, (request: ConfirmRequest) => Promise<boolean>] {
  const dialog = useRef<HTMLDialogElement>(null);
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const [typed, setTyped] = useState('');
  const answer = useRef<(ok: boolean) => void>(() => {});

  const ask = useCallback((next: ConfirmRequest) => {
    setRequest(next);
    setTyped('');
    return new Promise<boolean>((resolve) => {
      answer.current = resolve;
      // Open once React has rendered the new request into the dialog.
      requestAnimationFrame(() => dialog.current?.showModal());
    });
  }, []);

  const close = (ok: boolean) => {
    dialog.current?.close();
    answer.current(ok);
    answer.current = () => {};
  };
  const ready = !request?.typed || typed === request.typed;
  const element = (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={() => close(false)}>
      {request && (
        <form
          method="dialog"
          onSubmit={(event) => {
            event.preventDefault();
            if (ready) close(true);
          }}
        >
          <h2 id="confirm-title">{request.title}</h2>
          <div>{request.body}</div>
          {request.typed && (
            <p>
              <label>
                Type <code>{request.typed}</code> to confirm
                <input
                  aria-label="confirmation"
                  value={typed}
                  onChange={(e) => setTyped(e.target.value)}
                />
              </label>
            </p>
          )}
          <div className="row">
            <button type="button" onClick={() => close(false)}>
              Cancel
            </button>
            <button
              type="submit"
              className={request.danger ? 'danger' : 'primary'}
              disabled={!ready}
            >
              {request.action}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
  return [element, ask];
}
