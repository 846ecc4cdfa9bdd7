/**
 * Spec §5: the password leaves the browser only as its SHA-256, in lower-case hex (the server
 * then stores argon2id of that). crypto.subtle exists only in secure contexts (https, localhost);
 * elsewhere this rejects and the screen shows its unexpected-error text.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
