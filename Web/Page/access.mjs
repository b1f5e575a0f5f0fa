// Access tokens on the page. A token comes in the address's fragment
// (#token=…), which never reaches a server or a log, and leaves the address
// bar at once. When the server refuses the token (none, expired, another
// document's), reconnecting cannot help — the module says so
// (`flags.accessRefused`) — so the page stops and asks for one, which goes
// into the fragment again, like a token in a link, never into a query.

/** The token the address carries, if any, taken out of the address bar. */
export function takeTokenFromAddress() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  if (location.hash) history.replaceState(null, '', location.pathname);
  return token;
}

/**
 * Wires the token form. Returns `check(flags)`, for each redraw: the first
 * time the server refuses access, the connection goes offline and the form
 * shows the server's reason.
 */
export function attachAccess({ session, connection }) {
  const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
  let asked = false;
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = new URLSearchParams({ token: $('token-input').value.trim() }).toString();
    location.reload();
  });
  return (flags) => {
    if (asked || !flags.accessRefused) return;
    asked = true;
    connection.setOnline(false);
    $('token-reason').textContent = session.lastError?.message ?? '';
    $('token-form').hidden = false;
    $('token-input').focus();
  };
}
