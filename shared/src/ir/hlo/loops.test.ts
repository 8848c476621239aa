import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from './index';
import { knownTripCount } from './loops';

const train = readFileSync(new URL('../../../../test/fixtures/joins/train/hlo-opt.txt', import.meta.url), 'utf8');

/** Two nested loops, 3 trips around 5; `outerConfig` gives the outer while its backend config (or none). */
function nested(outerConfig: string): string {
  return `HloModule nested, is_scheduled=true

%inner_body (p: (s32[], f32[64])) -> (s32[], f32[64]) {
  %p = (s32[], f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[64]{0} get-tuple-element(%p), index=1
  %e = f32[64]{0} exponential(%x)
  %l = f32[64]{0} log(%e)
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[64]{0}) tuple(%n, %l)
}

%inner_cond (q: (s32[], f32[64])) -> pred[] {
  %q = (s32[], f32[64]{0}) parameter(0)
  %j = s32[] get-tuple-element(%q), index=0
  %five = s32[] constant(5)
  ROOT %lt = pred[] compare(%j, %five), direction=LT
}

%outer_body (r: (s32[], f32[64])) -> (s32[], f32[64]) {
  %r = (s32[], f32[64]{0}) parameter(0)
  %k = s32[] get-tuple-element(%r), index=0
  %y = f32[64]{0} get-tuple-element(%r), index=1
  %zero = s32[] constant(0)
  %start = (s32[], f32[64]{0}) tuple(%zero, %y)
  %inner = (s32[], f32[64]{0}) while(%start), condition=%inner_cond, body=%inner_body, backend_config={"known_trip_count":{"n":"5"}}
  %z = f32[64]{0} get-tuple-element(%inner), index=1
  %one.1 = s32[] constant(1)
  %m = s32[] add(%k, %one.1)
  ROOT %u = (s32[], f32[64]{0}) tuple(%m, %z)
}

%outer_cond (v: (s32[], f32[64])) -> pred[] {
  %v = (s32[], f32[64]{0}) parameter(0)
  %w = s32[] get-tuple-element(%v), index=0
  %three = s32[] constant(3)
  ROOT %lt.1 = pred[] compare(%w, %three), direction=LT
}

ENTRY %main (a: f32[64]) -> f32[64] {
  %a = f32[64]{0} parameter(0)
  %s = f32[64]{0} sine(%a)
  %c0 = s32[] constant(0)
  %init = (s32[], f32[64]{0}) tuple(%c0, %s)
  %outer = (s32[], f32[64]{0}) while(%init), condition=%outer_cond, body=%outer_body${outerConfig}
  ROOT %out = f32[64]{0} get-tuple-element(%outer), index=1
}
`;
}

describe('knownTripCount', () => {
  it('reads the trip count from a backend config printed bare or as a string, and nothing from one without it', () => {
    expect(knownTripCount('%w = (s32[]) while(%t), condition=%c, body=%b, backend_config={"known_trip_count":{"n":"8"},"known_init_step":{"init":"0","step":"1"}}')).toBe(8);
    expect(knownTripCount('%w = (s32[]) while(%t), condition=%c, body=%b, backend_config="{\\"known_trip_count\\":{\\"n\\":\\"12\\"}}"')).toBe(12);
    expect(knownTripCount('%w = (s32[]) while(%t), condition=%c, body=%b, backend_config={"dynamic_variables":[]}')).toBeUndefined();
    expect(knownTripCount('%w = (s32[]) while(%t), condition=%c, body=%b')).toBeUndefined();
  });
});

describe('spill traffic in loops', () => {
  const spills = indexHlo(train, 'hlo-opt').index.spills;
  const spill = (producer: string) => spills.find((s) => s.producer === producer);

  it('counts a candidate of a scan’s 4-trip while body 4 times, and says which loop it is in', () => {
    // `%ynn_fusion` (f32[16,32], 2 KiB) in the forward scan's body `%region_0.4`, read by `%tanh_bitcast_fusion`.
    const c = spill('ynn_fusion');
    expect(c).toMatchObject({ scope: 'region_0.4', bytes: 2048, consumers: ['tanh_bitcast_fusion'], loop: { whiles: ['while.11'], trips: 4 } });
    expect(c?.traffic).toBe(2048 * 2 * 4);
    expect(spill('dot.23')).toMatchObject({ scope: 'wide.wide.region_2.9.clone.clone', bytes: 4096, traffic: 4096 * 2 * 4, loop: { whiles: ['while.3'], trips: 4 } });
  });

  it('does not multiply a dynamic-update-slice that fills the loop-carried buffer in place', () => {
    // The scan stacking its carries: one f32[2,8,32] slice per trip into f32[4,2,8,32] (8 KiB).
    const c = spill('bitcast_dynamic-update-slice_fusion');
    expect(c).toMatchObject({ scope: 'region_0.4', bytes: 8192, loop: { whiles: ['while.11'], trips: 4, inPlace: true } });
    expect(c?.traffic).toBe(8192 * (1 + (c?.consumers.length ?? 0)));
  });

  it('leaves candidates outside loops as they were', () => {
    const c = spill('ynn_fusion.3');
    expect(c).toMatchObject({ scope: 'main.11', bytes: 2048, consumers: ['copy.10'], traffic: 4096 });
    expect(c?.loop).toBeUndefined();
  });

  it('multiplies the trip counts of nested loops, and counts one trip where a loop has none known', () => {
    const known = indexHlo(nested(', backend_config={"known_trip_count":{"n":"3"}}'), 'hlo-opt').index.spills.find((s) => s.producer === 'e');
    expect(known).toMatchObject({ bytes: 256, consumers: ['l'], loop: { whiles: ['outer', 'inner'], trips: 15 }, traffic: 256 * 2 * 15 });
    const unknown = indexHlo(nested(''), 'hlo-opt').index.spills.find((s) => s.producer === 'e');
    expect(unknown?.loop).toEqual({ whiles: ['outer', 'inner'] });
    expect(unknown?.traffic).toBe(256 * 2);
  });
});
