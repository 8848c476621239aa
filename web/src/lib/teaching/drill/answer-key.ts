const PREFIX = 'seam.drill-key.';

/**
 * The secret this browser answers drills with in room `roomId`, made on first use and kept in
 * `storage`: whoever holds it reads these answers, so it is never shown or sent anywhere but the
 * drill endpoints. 32 random characters from `[A-Za-z0-9_-]`.
 */
export function answerKey(storage: Pick<Storage, 'getItem' | 'setItem'>, roomId: string, random: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n))): string {
  const stored = storage.getItem(PREFIX + roomId);
  if (stored && /^[A-Za-z0-9_-]{16,128}$/.test(stored)) return stored;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  const key = Array.from(random(32), (b) => alphabet[b % 64]).join('');
  storage.setItem(PREFIX + roomId, key);
  return key;
}
