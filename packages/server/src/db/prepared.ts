import type { CompiledQuery, Compilable, QueryResult } from 'kysely';
import type { Db } from './schema.js';

/**
 * Statements that run on every sign-in or signed-in request (decision 0029). Each is built and
 * compiled by Kysely once per database (not once per call), and on PostgreSQL it is sent as a
 * named statement: each pooled connection parses and plans it once and afterwards only binds the
 * values. On SQLite, the driver's statement cache (sqlite-driver.ts) already reuses the prepared
 * statement for the same text.
 *
 * The registry maps SQL text to a statement name. It holds only what `preparedStatement` declares,
 * a handful of fixed texts, so a connection never accumulates prepared statements.
 */
const namesByText = new Map<string, string>();
const declaredNames = new Set<string>();

/** The name a PostgreSQL connection prepares this SQL text under, if it is a declared hot statement. */
export function statementNameOf(sqlText: string): string | undefined {
  return namesByText.get(sqlText);
}

/** Stands for a parameter while the statement is compiled; replaced by the call's values. */
const placeholder = (name: string) => `\u0000foyer-parameter:${name}`;

type Slot<P> = { from: 'value'; value: unknown } | { from: 'parameter'; key: keyof P };

interface Compiled<P> {
  query: CompiledQuery;
  slots: Array<Slot<P>>;
}

/**
 * Declares a hot statement. `build` receives placeholders for the named parameters (typed as the
 * parameters themselves, so the builder reads as usual); they are swapped for each call's values.
 * A constant the builder writes into the statement stays as it is.
 */
export function preparedStatement<P extends object, R>(
  name: string,
  parameterNames: ReadonlyArray<keyof P & string>,
  build: (db: Db, parameters: P) => Compilable<R>,
): (db: Db, parameters: P) => Promise<QueryResult<R>> {
  if (declaredNames.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  declaredNames.add(name);
  // Keyed by the dialect's adapter, which a database handle and each of its transactions share:
  // the compiled text depends only on the dialect.
  const compiledBy = new WeakMap<object, Compiled<P>>();

  function compile(db: Db): Compiled<P> {
    const placeholders = Object.fromEntries(parameterNames.map((key) => [key, placeholder(key)])) as unknown as P;
    const query = build(db, placeholders).compile();
    const byPlaceholder = new Map<unknown, keyof P>(parameterNames.map((key) => [placeholder(key), key]));
    const slots = query.parameters.map((value): Slot<P> => {
      const key = byPlaceholder.get(value);
      return key === undefined ? { from: 'value', value } : { from: 'parameter', key };
    });
    const known = namesByText.get(query.sql);
    if (known !== undefined && known !== name) throw new Error(`prepared statements ${known} and ${name} have the same text`);
    namesByText.set(query.sql, name);
    return { query, slots };
  }

  return async (db, parameters) => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledBy.get(adapter);
    if (compiled === undefined) {
      compiled = compile(db);
      compiledBy.set(adapter, compiled);
    }
    const values = compiled.slots.map((slot) => (slot.from === 'value' ? slot.value : parameters[slot.key]));
    return db.executeQuery<R>({ ...compiled.query, parameters: values } as CompiledQuery<R>);
  };
}

/** A row's columns as a statement's parameters under a prefix (`audit_id`, …), for a statement that writes several rows. */
export type Prefixed<P extends string, T extends object> = { [K in keyof T & string as `${P}${K}`]: T[K] };

export function prefixed<P extends string, T extends object>(prefix: P, row: T): Prefixed<P, T> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [`${prefix}${key}`, value])) as Prefixed<P, T>;
}

/** The row `prefixed` spread among a statement's parameters, read back by its columns (inside a statement's builder). */
export function unprefixed<P extends string, T extends object>(prefix: P, parameters: Prefixed<P, T>, columns: ReadonlyArray<keyof T & string>): T {
  const source = parameters as unknown as Record<string, unknown>;
  return Object.fromEntries(columns.map((column) => [column, source[`${prefix}${column}`]])) as T;
}
