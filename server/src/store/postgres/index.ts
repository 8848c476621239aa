import { validated } from '../shared-input';
import type { SharedStore } from '../shared-store';
import type { StagedBlobs, StagingLimits } from '../staged-blobs';
import { postgresDocuments } from './documents';
import { postgresDrills } from './drills';
import { postgresHistory } from './history';
import { postgresInvitations } from './invitations';
import { postgresJobs } from './jobs';
import { migrate } from './migrations';
import { openPool } from './pool';
import { postgresRoomLog } from './room-log';
import { postgresRooms } from './rooms';
import { postgresRunnerTokens } from './runner-tokens';
import { postgresStaging } from './staging';
import { postgresTraces } from './traces';

export { MIGRATIONS, migrate } from './migrations';

/** The shared store on PostgreSQL, and the files staged for imports on the same connections. */
export interface PostgresStore extends SharedStore {
  /** Staged blobs (`postgresStaging`) bounded by `limits`. */
  staging(limits: StagingLimits): StagedBlobs;
}

/**
 * Opens the shared store on PostgreSQL at `url` (`postgres://…`): a connection pool of `max`
 * connections, the schema brought up to date first (`migrate`). Throws `StoreUnavailableError`
 * when PostgreSQL cannot be reached.
 */
export async function openPostgresStore(url: string, opts: { max?: number; now?: () => number } = {}): Promise<PostgresStore> {
  const pool = openPool(url, opts.max);
  try {
    await migrate(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const store = validated({
    roomLog: postgresRoomLog(pool),
    rooms: postgresRooms(pool),
    jobs: postgresJobs(pool, opts.now),
    documents: postgresDocuments(pool),
    traces: postgresTraces(pool),
    history: postgresHistory(pool),
    invitations: postgresInvitations(pool),
    drills: postgresDrills(pool),
    runnerTokens: postgresRunnerTokens(pool, opts.now),
    close: () => pool.end(),
  });
  return { ...store, staging: (limits) => postgresStaging(pool, limits, opts.now) };
}
