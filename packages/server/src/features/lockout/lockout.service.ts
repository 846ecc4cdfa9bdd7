import { LIMITS } from '@foyer/contract';
import { isAppError } from '../../lib/errors.js';
import type { UnitOfWork } from '../../lib/unit-of-work.js';
import {
  clearFailures,
  lockAfterFailure,
  releaseAttempt,
  reserveAttemptUnlessSso,
  reserveAttemptWithAccount,
  type FailureCount,
  type SigninAccount,
} from './lockout.repo.js';

/** Spec §9: the lock lasts 30 minutes. */
export const LOCK_MS = LIMITS.accountLockMinutes * 60 * 1000;

/**
 * One sign-in attempt's place in its email's count (decision 0003: reserve, then settle).
 * `refused`: the email is locked, or this attempt's number is over the threshold, so its password
 * must not be checked.
 */
export interface Reservation {
  emailKey: string;
  number: number;
  locked: boolean;
  refused: boolean;
  /** The email's account, read in the same statement that counted the attempt (decision 0029). */
  account: SigninAccount | undefined;
}

function reservationOf(uow: UnitOfWork, emailKey: string, threshold: number, count: FailureCount & { account: SigninAccount | undefined }): Reservation {
  const locked = count.lockedUntil !== null && count.lockedUntil > uow.now;
  return { emailKey, number: count.failures, locked, refused: locked || count.failures > threshold, account: count.account };
}

/**
 * An attempt over the threshold on an email whose lock is not set: the attempt that reached the
 * threshold did not set it (it was a right password on an account that cannot sign in, so it gave
 * its place back, or its settlement failed), while later ones had already counted past it. The
 * refused attempt sets the lock, so it runs out like any other (spec §9: 30 minutes) instead of
 * refusing the email until a reset or an administrator's unlock.
 */
async function lockedWhenRefused(uow: UnitOfWork, reservation: Reservation): Promise<Reservation> {
  if (reservation.refused && !reservation.locked) await lockAfterFailure(uow.db, { emailKey: reservation.emailKey, lockUntil: uow.now + LOCK_MS });
  return reservation;
}

/** Counts the attempt before any password is checked. */
export async function reserve(uow: UnitOfWork, emailKey: string, threshold: number): Promise<Reservation> {
  return lockedWhenRefused(uow, reservationOf(uow, emailKey, threshold, await reserveAttemptWithAccount(uow.db, { emailKey, now: uow.now })));
}

/**
 * A password sign-in's reservation: the same, unless the email's domain requires SSO (decision
 * 0022), in which case nothing is counted and the answer is `ssoRequired`. One statement.
 */
export async function reserveUnlessSso(uow: UnitOfWork, emailKey: string, domain: string, threshold: number): Promise<Reservation | 'ssoRequired'> {
  const count = await reserveAttemptUnlessSso(uow.db, { emailKey, now: uow.now, domain });
  return count === undefined ? 'ssoRequired' : lockedWhenRefused(uow, reservationOf(uow, emailKey, threshold, count));
}

/** A wrong password: the attempt stays counted; true when it was the one that reached the threshold (now locked). */
export async function settleFailure(uow: UnitOfWork, reservation: Reservation, threshold: number): Promise<boolean> {
  if (reservation.number < threshold) return false;
  await lockAfterFailure(uow.db, { emailKey: reservation.emailKey, lockUntil: uow.now + LOCK_MS });
  return true;
}

/** A right password on an account that cannot sign in (yet): no failure, the place is given back. */
export async function giveBack(uow: UnitOfWork, reservation: Reservation): Promise<void> {
  await releaseAttempt(uow.db, reservation.emailKey);
}

/**
 * Runs a reserved attempt's password checks. When the hashing threads turn one away (503
 * `unavailable`, decision 0011), no password was checked: the reservation is given back before
 * the refusal goes on, so a refusal never counts towards the lock.
 */
export async function checkingReserved<T>(uow: UnitOfWork, reservation: Reservation, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (isAppError(error) && error.code === 'unavailable') await giveBack(uow, reservation);
    throw error;
  }
}

/**
 * Forgets every failure and lifts the lock of an email: after a successful sign-in, a password
 * reset, or an administrator's unlock. True when there was something to forget.
 */
export async function clearLockout(uow: UnitOfWork, emailKey: string): Promise<boolean> {
  return (await clearFailures(uow.db, emailKey)) > 0;
}
