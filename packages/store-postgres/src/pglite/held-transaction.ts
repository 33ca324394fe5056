const ROLLBACK = Symbol('rollback');

/** A transaction opened through PGlite's callback API and held open until `finish` is called. */
export interface HeldTransaction<S> {
  transaction: S;
  /** Commits (or rolls back) and waits until PGlite has ended the transaction; a commit error is thrown here. */
  finish(commit: boolean): Promise<void>;
}

/**
 * PGlite runs a transaction only inside `transaction(callback)`, never as raw BEGIN/COMMIT. This opens
 * one whose callback waits until `finish`, so a caller can run statements in it across awaits (the
 * kysely driver on one thread, the worker's protocol on the other). Resolves once the transaction is
 * open; rejects if it could not be opened.
 */
export function holdTransaction<S>(
  open: (callback: (transaction: S) => Promise<void>) => Promise<unknown>,
): Promise<HeldTransaction<S>> {
  return new Promise((ready, failed) => {
    let settle: { commit: () => void; rollback: () => void } | undefined;
    const done = open(
      (transaction) =>
        new Promise<void>((commit, rollback) => {
          settle = { commit, rollback: () => rollback(ROLLBACK) };
          ready({ transaction, finish });
        }),
    ).catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
    done.catch(failed);
    async function finish(commit: boolean): Promise<void> {
      const current = settle;
      settle = undefined;
      if (commit) current?.commit();
      else current?.rollback();
      await done;
    }
  });
}
