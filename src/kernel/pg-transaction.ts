/**
 * One transaction on a client of a `pg` pool, the way every PostgreSQL caller of the engine runs
 * one (the database driver, the pool's store): `begin`, the work, COMMIT; ROLLBACK when the work
 * throws. The client always goes back to its pool, or is thrown away when even ROLLBACK failed
 * (a session in an unknown state is never lent again).
 */
import type pg from 'pg';

export async function inTransaction<T>(pool: pg.Pool, begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}
