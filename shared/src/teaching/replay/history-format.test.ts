import { describe, expect, it } from 'vitest';
import { readHistoryLine, readPresenterSample } from './history-format';

const sample = { docId: 'd1', topLine: 12, anchor: 3, head: 9, userId: 'u', name: 'Ada' };

describe('history lines', () => {
  it('reads the four forms exactly', () => {
    expect(readHistoryLine('{"type":"start","startsAt":1,"endsAt":2,"dropped":false,"base":"AAA="}')).toEqual({ type: 'start', startsAt: 1, endsAt: 2, dropped: false, base: 'AAA=' });
    expect(readHistoryLine('{"type":"update","id":4,"at":5,"data":"AQ=="}')).toEqual({ type: 'update', id: 4, at: 5, data: 'AQ==' });
    expect(readHistoryLine(JSON.stringify({ type: 'presenter', id: 6, at: 7, view: sample }))).toEqual({ type: 'presenter', id: 6, at: 7, view: sample });
    expect(readHistoryLine('{"type":"presenter","id":6,"at":7,"view":null}')).toEqual({ type: 'presenter', id: 6, at: 7, view: null });
    expect(readHistoryLine('{"type":"more","next":"7.6"}')).toEqual({ type: 'more', next: '7.6' });
  });

  it('refuses anything else: not JSON, unknown types, bad times and ids, a malformed presenter', () => {
    for (const line of [
      'not json', '[]', 'null', '{"type":"other"}', '{"type":"update","id":0,"at":5,"data":"AQ=="}', '{"type":"update","id":1,"at":-5,"data":"AQ=="}',
      '{"type":"update","id":1,"at":1e20,"data":"AQ=="}', '{"type":"update","id":1.5,"at":5,"data":"AQ=="}', '{"type":"start","startsAt":1,"endsAt":2,"dropped":"no","base":""}',
      '{"type":"more","next":""}', JSON.stringify({ type: 'presenter', id: 1, at: 1, view: { ...sample, topLine: 0 } }),
      JSON.stringify({ type: 'presenter', id: 1, at: 1, view: { ...sample, extra: 1 } }), JSON.stringify({ type: 'presenter', id: 1, at: 1, view: 'd1:12' }),
    ]) expect(readHistoryLine(line), line).toBeUndefined();
  });

  it('reads a presenter sample strictly', () => {
    expect(readPresenterSample({ ...sample, docId: null })).toEqual({ ...sample, docId: null });
    expect(readPresenterSample({ ...sample, docId: 'x'.repeat(201) })).toBeUndefined();
    expect(readPresenterSample({ ...sample, name: 'n'.repeat(41) })).toBeUndefined();
    expect(readPresenterSample({ ...sample, head: 2.5 })).toBeUndefined();
  });
});
