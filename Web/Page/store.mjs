// Sessions kept across reloads in IndexedDB: a session with edits the
// server has not acknowledged is saved under its document and replica; a
// page that opens the document claims one such session (deleting it, so
// two tabs never resume one replica) and resumes it. Nothing is saved for a
// session with nothing pending.

const DATABASE = 'easel';
const STORE = 'sessions';

function request(operation) {
  return new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });
}

async function open() {
  const opening = indexedDB.open(DATABASE, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore(STORE, { keyPath: 'key' });
  return request(opening);
}

export class SessionStore {
  static async open() {
    try {
      return new SessionStore(await open());
    } catch {
      return new SessionStore(null); // private modes without IndexedDB: nothing is kept
    }
  }

  constructor(database) {
    this.database = database;
  }

  /** A saved session of `document` with edits pending, removed from the store; or undefined. */
  async claim(document) {
    if (!this.database) return undefined;
    const transaction = this.database.transaction(STORE, 'readwrite');
    const store = transaction.objectStore(STORE);
    const all = await request(store.getAll());
    const found = all.find((entry) => entry.document === document);
    if (found) await request(store.delete(found.key));
    return found?.saved;
  }

  /** Keeps `saved` (the session's bytes) while edits are pending; forgets it when none are. */
  async keep(document, replica, saved, pending) {
    if (!this.database) return;
    const store = this.database.transaction(STORE, 'readwrite').objectStore(STORE);
    const key = `${document} ${replica}`;
    await request(pending ? store.put({ key, document, saved }) : store.delete(key));
  }
}
