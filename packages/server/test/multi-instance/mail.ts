import pg from 'pg';
import type { Cluster } from './cluster.js';
import { count, type MultiInstanceReport } from './report.js';

async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until the surviving workers sent all they can. Rows the killed instance had claimed stay
 * held until its claim runs out (5 minutes, mail.worker.ts); that wait is cut short here by
 * ending those claims, as time would. A copy of one of them is possible (sent, then killed before
 * marking it): delivery at a crash is at least once, with the same Message-ID (decision 0009).
 */
export async function settleMail(cluster: Cluster): Promise<MultiInstanceReport['mail']> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    const unsent = async (extra = '') =>
      (await client.query<{ id: string }>(`select id from mail_outbox where sent_at is null ${extra}`, [])).rows.map((row) => row.id);
    const deadline = Date.now() + 15_000;
    let stableSince = Date.now();
    let last = '';
    // Settled: nothing claimable is left, and the rows still unsent stopped changing for a second.
    while (Date.now() < deadline) {
      const free = await unsent(`and (locked_until is null or locked_until <= ${Date.now()})`);
      const now = (await unsent()).join(',');
      if (now !== last) [last, stableSince] = [now, Date.now()];
      if (free.length === 0 && Date.now() - stableSince > 1000) break;
      await pause(100);
    }
    const heldByKilled = await unsent();
    await client.query(`update mail_outbox set locked_until = null where sent_at is null`);
    while (Date.now() < deadline + 15_000 && (await unsent()).length > 0) await pause(100);
    // Let a late duplicate arrive before counting.
    await pause(500);
    const queued = (await client.query<{ id: string }>('select id from mail_outbox')).rows.map((row) => row.id);
    const delivered = cluster.smtp.messages.map((message) => /^<([^@>]+)@/.exec(message.headers.get('message-id') ?? '')?.[1] ?? '?');
    const seen = count(delivered);
    return {
      queued: queued.length,
      delivered: delivered.length,
      missing: queued.filter((id) => seen[id] === undefined),
      duplicates: Object.keys(seen).filter((id) => (seen[id] ?? 0) > 1),
      heldByKilled,
    };
  } finally {
    await client.end();
  }
}
