import { parseArgs } from 'node:util';
import type { Deps } from '../deps.js';

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface AdminIo {
  deps: Deps;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** One admin command: its arguments after the command's name; returns the exit code. */
export type AdminCommand = (args: string[], io: AdminIo) => Promise<number>;

/** A wrong command line: runAdmin prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

type Options = Record<string, { type: 'string' | 'boolean' }>;

export function parse(args: string[], options: Options) {
  try {
    return parseArgs({ args: withDashValues(args, options), options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Passwords and client secrets may begin with a dash (`--password -Tq8…`), which parseArgs refuses
 * as ambiguous. After an option that takes a value, the next argument is that value unless it
 * names one of the command's own options (or help), so only a missing value is still an error.
 */
function withDashValues(args: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next?.startsWith('-') === true && !namesOption(next, options)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function namesOption(arg: string, options: Options): boolean {
  if (arg === '-h' || arg === '--help' || arg === '--') return true;
  return arg.startsWith('--') && Object.hasOwn(options, arg.slice(2).split('=')[0]!);
}

export function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string') throw new UsageError(`missing --${name}`);
  return value;
}

export function optional(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
