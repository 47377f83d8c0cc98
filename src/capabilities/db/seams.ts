/**
 * Read-only rests on two locks that must each hold alone: the classifier (nothing but reads is
 * sent) and the server (every statement runs in a read-only transaction on a read-only session).
 * Tests switch one off to show the other still holds (test/db/readonly-corpus.test.ts); nothing
 * else ever changes these.
 */
export const readOnlyLocks = {
  /** The classifier's refusals (query.ts refusal(), the export's one-read check). */
  classifier: true,
  /** The read-only session and transaction of the PostgreSQL and MariaDB drivers. */
  serverTransaction: true,
};
