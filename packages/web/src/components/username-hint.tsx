/**
 * For password managers on a screen that sets a new password: the account's username, hidden, so
 * that the new password is saved under the right entry rather than under nothing or the last
 * address typed anywhere. Rendered only when the screen knows the email.
 */
export function UsernameHint({ email }: { email: string | undefined }) {
  if (email === undefined || email === '') return null;
  return <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />;
}
