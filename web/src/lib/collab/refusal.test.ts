import { describe, expect, it } from 'vitest';
import { refusalMessage } from './refusal';

describe('refusalMessage', () => {
  it('says plainly why a change was refused', () => {
    expect(refusalMessage('locked')).toBe('Your last change was refused: the room is locked. The room was reloaded from the server.');
    expect(refusalMessage('viewer')).toContain('viewers cannot change the room');
  });

  it('reads an unknown reason code like a gap, never echoing the code', () => {
    expect(refusalMessage('<b>new-code</b>')).toBe(refusalMessage('gap'));
  });
});
