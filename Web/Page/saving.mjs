// Nothing lost on leaving: edits the server has not acknowledged are kept
// in this browser (store.mjs) at most every 200 ms and when the page hides,
// the status says saved / saving / kept here, and leaving with edits
// unacknowledged asks first (the drawing contest's "discarding media should
// be prevented with an alert").
import { setAttributeIfChanged, setTextIfChanged } from './view.mjs';

/** What the status says: [state, text], from whether edits wait and the connection. */
export function savingStatus(pending, connection) {
  if (!pending) return ['saved', 'Saved'];
  if (connection === 'connected' || connection === 'weak') return ['saving', 'Saving…'];
  return ['offline', 'Not saved yet: kept in this browser'];
}

/** How long the outbox may change before it is kept again (ms). */
export const KEEP_EVERY_MS = 200;

/**
 * Keeps the session of `document` and `replica` in `store` while edits
 * wait, and shows the status in `status`. Returns `update(flags,
 * connection)`, for each redraw.
 */
export function attachSaving({ session, store, document, replica, status }) {
  let keptPending = false;
  let keepTimer = null;
  function keep(pending) {
    if ((!pending && !keptPending) || keepTimer) return;
    keepTimer = setTimeout(() => {
      keepTimer = null;
      const stillPending = session.flags.unacknowledged;
      keptPending = stillPending;
      store.keep(document, replica, session.saved(), stillPending);
    }, KEEP_EVERY_MS);
  }
  addEventListener('pagehide', () => {
    if (session.flags.unacknowledged) store.keep(document, replica, session.saved(), true);
  });
  // Kept in this browser, but a person leaving may not come back to this
  // browser: ask first.
  addEventListener('beforeunload', (event) => {
    if (!session.flags.unacknowledged) return;
    event.preventDefault();
    event.returnValue = '';
  });
  return (flags, connection) => {
    const [state, text] = savingStatus(flags.unacknowledged, connection);
    setAttributeIfChanged(status, 'data-state', state);
    setTextIfChanged(status, text);
    keep(flags.unacknowledged);
  };
}
