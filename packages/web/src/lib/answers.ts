import { CALLS, type CallName } from '@foyer/contract';
import * as z from 'zod/mini';
import { send, type CallOptions, type CallResult } from './api';

/**
 * The contract's own schemas in the browser (decision 0017): a screen that reads an answer gets
 * it through its call's response schema (zod's light build), so what it reads has the
 * contract's shape and a field the contract does not name never reaches it. Only the screens
 * behind the router import this; the sign-in page reads nothing of an answer and its first load
 * has no room for zod.
 */

export type CallData<N extends CallName> = z.output<(typeof CALLS)[N]['response']>;

/** Sends a call and parses its success through the call's contract schema. */
export async function fetchAnswer<N extends CallName>(name: N, options: CallOptions<N> = {}): Promise<CallResult<CallData<N>>> {
  const result = await send(name, options);
  if (!result.ok) return result;
  const parsed = z.safeParse(CALLS[name].response, result.data);
  if (!parsed.success) {
    // The service parses every answer through the same schema before sending it: a mismatch
    // means the page and the service come from different versions.
    console.error(`the answer of ${name} does not fit its contract schema`);
    return { ok: false, code: 'unexpectedError' };
  }
  // Parsed by CALLS[name].response, whose output is CallData<N> by definition: TypeScript widens
  // a generic index to every call's answer, and this narrows it back.
  return { ok: true, data: parsed.data as CallData<N> };
}
