import { describe, expect, it } from 'vitest';
import { parseRoute, roomHref } from './route';

describe('parseRoute', () => {
  it('reads the room id from the path and the token from the fragment', () => {
    expect(parseRoute('/r/AbC_12-x', '#token=s3cr3t')).toEqual({ name: 'room', roomId: 'AbC_12-x', token: 's3cr3t' });
  });
  it('treats a room path without a token as a room with no access', () => {
    expect(parseRoute('/r/abc', '')).toEqual({ name: 'room', roomId: 'abc', token: null });
  });
  it('sends every other path to the lobby', () => {
    expect(parseRoute('/', '')).toEqual({ name: 'lobby', invite: null });
    expect(parseRoute('/r/', '#token=x')).toEqual({ name: 'lobby', invite: null });
    expect(parseRoute('/r/a/b', '#token=x')).toEqual({ name: 'lobby', invite: null });
  });
  it('takes the invitation a lobby link carries in its fragment', () => {
    expect(parseRoute('/', '#invite=inv_Ab-c_1')).toEqual({ name: 'lobby', invite: 'inv_Ab-c_1' });
    expect(parseRoute('/', '#invite=')).toEqual({ name: 'lobby', invite: null });
    expect(parseRoute('/r/abc', '#invite=inv_x')).toEqual({ name: 'room', roomId: 'abc', token: null });
  });
  it('round-trips a link through roomHref', () => {
    const href = roomHref('room1', 'a+b/c=');
    const [path, hash] = href.split('#');
    expect(parseRoute(path ?? '', `#${hash}`)).toEqual({ name: 'room', roomId: 'room1', token: 'a+b/c=' });
  });
});
