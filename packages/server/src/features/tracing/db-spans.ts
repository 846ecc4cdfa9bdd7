import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { LogEvent, Logger } from 'kysely';
import { errorAttributes, tracer, tracingActive } from './tracing.js';

/** The statement's first keyword (`SELECT`, `INSERT`, `BEGIN`): the span's name and operation. */
function operationOf(sql: string): string {
  return /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
}

/**
 * One span per statement, for SQLite and PostgreSQL alike, from Kysely's own log hook: no
 * instrumentation of better-sqlite3 exists, and pg's patches the module at load time (decision
 * 0026). Kysely calls the hook when the statement has finished, in the caller's async context, so
 * the span gets its parent and its start is the end less the measured duration. The text is the
 * compiled statement with placeholders (`?`, `$1`): values are never part of it. A statement
 * outside any traced work (the mail worker's polling) is not recorded: a trace of its own every
 * two seconds would say nothing.
 */
export function traceQueries(system: 'sqlite' | 'postgresql'): Logger {
  return (event: LogEvent) => {
    if (!tracingActive() || trace.getSpan(context.active()) === undefined) return;
    const endTime = performance.timeOrigin + performance.now();
    const operation = operationOf(event.query.sql);
    const span = tracer().startSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        startTime: endTime - event.queryDurationMillis,
        attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': event.query.sql },
      },
      context.active(),
    );
    if (event.level === 'error') {
      span.setAttributes(errorAttributes(event.error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(endTime);
  };
}
