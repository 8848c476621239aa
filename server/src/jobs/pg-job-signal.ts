import pg from 'pg';
import { StoreUnavailableError } from '../store/store-errors';
import { readJobNotice, writeJobNotice, type JobNotice, type JobSignal } from './job-signal';
import type { JobLogger } from './service';

/** The PostgreSQL channel the instances of one database tell each other about the capture queue on. */
export const JOB_CHANNEL = 'seam_jobs';

/** How long a lost listening connection waits before it dials again (ms). */
const REDIAL_MS = 1000;

/**
 * Job notices over PostgreSQL `LISTEN`/`NOTIFY` on {@link JOB_CHANNEL}: one connection of its own
 * per instance listens, and notices go out through it (PostgreSQL delivers a notice to every
 * listening session, this one included, once the sending transaction commits). A connection lost
 * (PostgreSQL restarted) is dialled again every second; notices sent meanwhile are lost, which the
 * service's tick makes up for. Throws `StoreUnavailableError` when PostgreSQL cannot be reached at first.
 */
export async function connectPgJobSignal(url: string, log: JobLogger): Promise<JobSignal> {
  let client: pg.Client | undefined;
  let closed = false;
  let redial: NodeJS.Timeout | undefined;
  let on: ((notice: JobNotice) => void) | undefined;

  const scheduleRedial = () => {
    if (closed || redial) return;
    redial = setTimeout(() => {
      redial = undefined;
      open().catch((err: unknown) => {
        log.warn({ err: (err as Error).message }, 'job notices: listening connection not restored; trying again');
        scheduleRedial();
      });
    }, REDIAL_MS);
    redial.unref();
  };

  const lost = (c: pg.Client) => {
    if (client === c) client = undefined;
    c.end().catch(() => undefined);
    scheduleRedial();
  };

  const open = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    c.on('error', (err) => {
      log.warn({ err: err.message }, 'job notices: listening connection lost');
      lost(c);
    });
    c.on('end', () => lost(c));
    c.on('notification', (m) => {
      if (m.channel !== JOB_CHANNEL) return;
      const notice = readJobNotice(m.payload);
      if (notice) on?.(notice);
    });
    await c.connect();
    await c.query(`LISTEN ${JOB_CHANNEL}`);
    if (closed) {
      await c.end();
      return;
    }
    client = c;
  };

  try {
    await open();
  } catch (err) {
    // Not started: nothing dials again.
    closed = true;
    clearTimeout(redial);
    throw new StoreUnavailableError('jobs.listen', err);
  }
  return {
    notify: async (notice) => {
      if (!client) throw new Error('job notices: not connected to PostgreSQL');
      await client.query('SELECT pg_notify($1, $2)', [JOB_CHANNEL, writeJobNotice(notice)]);
    },
    listen: (cb) => {
      on = cb;
    },
    close: async () => {
      closed = true;
      clearTimeout(redial);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
