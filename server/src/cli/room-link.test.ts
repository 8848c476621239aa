import { describe, expect, it } from 'vitest';
import { parseRoomLink, RoomLinkError } from './room-link';

describe('parseRoomLink', () => {
  it('reads the server, the room and the token of a shared link, and shows it without the token', () => {
    expect(parseRoomLink('https://seam.example.org/r/AbC_1-2#token=s3cret')).toEqual({ origin: 'https://seam.example.org', roomId: 'AbC_1-2', token: 's3cret', shown: 'https://seam.example.org/r/AbC_1-2' });
    expect(parseRoomLink('http://127.0.0.1:8080/seam/r/x/?token=t')).toMatchObject({ origin: 'http://127.0.0.1:8080/seam', roomId: 'x', token: 't' });
  });

  it('refuses what is not a room link with a token, never repeating the token', () => {
    for (const bad of ['not a url', 'ftp://h/r/x#token=s3cret', 'https://h/lobby#token=s3cret', 'https://h/r/x', 'https://h/r/x#invite=inv_1']) {
      expect(() => parseRoomLink(bad), bad).toThrow(RoomLinkError);
      try {
        parseRoomLink(bad);
      } catch (e) {
        expect((e as Error).message).not.toContain('s3cret');
      }
    }
  });
});
