import { describe, expect, it } from 'vitest';
import { rowWindow } from './row-window';

describe('rowWindow', () => {
  it('renders the rows in view and the overscan, spacers standing for the rest', () => {
    expect(rowWindow(800, 20, 2000, 400, 10)).toEqual({ first: 90, last: 130, before: 1800, after: 670 * 20 });
  });

  it('renders every row of a short list', () => {
    expect(rowWindow(15, 20, 0, 600)).toEqual({ first: 0, last: 15, before: 0, after: 0 });
  });

  it('stays inside the list when scrolled past its end or before it is measured', () => {
    expect(rowWindow(100, 20, 10_000, 400, 5)).toEqual({ first: 100, last: 100, before: 2000, after: 0 });
    expect(rowWindow(100, 0, 0, 0, 5)).toEqual({ first: 0, last: 5, before: 0, after: 95 });
  });
});
