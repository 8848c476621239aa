import { describe, expect, it } from 'vitest';
import { paneForDocument } from './pane-choice';

const panes = [
  { id: 'j1', kind: 'jaxpr' as const },
  { id: 's1', kind: 'stablehlo' as const },
  { id: 'h1', kind: 'hlo-opt' as const },
];

describe('the pane a chosen document takes in split view', () => {
  it('is the pane already showing it', () => {
    expect(paneForDocument(panes, { id: 's1', kind: 'stablehlo' })).toBe(1);
  });
  it('is the pane of its layer: another jaxpr replaces the jaxpr pane, another optimized HLO the HLO pane', () => {
    expect(paneForDocument(panes, { id: 'j2', kind: 'jaxpr' })).toBe(0);
    expect(paneForDocument(panes, { id: 'h2', kind: 'hlo-opt' })).toBe(2);
  });
  it('is the first of two panes of that kind', () => {
    expect(paneForDocument([{ id: 'a', kind: 'text' }, { id: 'b', kind: 'text' }], { id: 'c', kind: 'text' })).toBe(0);
  });
  it('is none for a kind no pane shows (HLO before optimization beside the optimized one, a trace, a document whose kind is unknown)', () => {
    expect(paneForDocument(panes, { id: 'h0', kind: 'hlo' })).toBe(-1);
    expect(paneForDocument(panes, { id: 't', kind: 'trace' })).toBe(-1);
    expect(paneForDocument([{ id: 'gone', kind: undefined }], { id: 't', kind: 'trace' })).toBe(-1);
    expect(paneForDocument([], { id: 'j2', kind: 'jaxpr' })).toBe(-1);
  });
});
