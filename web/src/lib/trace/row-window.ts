/** The rows of a long list worth rendering: those in view and `overscan` more each side. */
export interface RowWindow {
  readonly first: number;
  readonly last: number;
  /** Heights (px) of the spacers that stand for the rows before `first` and from `last` on. */
  readonly before: number;
  readonly after: number;
}

/** Which of `count` rows `rowPx` tall to render when `viewPx` of them show from `scrollTop` down. */
export function rowWindow(count: number, rowPx: number, scrollTop: number, viewPx: number, overscan = 20): RowWindow {
  const h = Math.max(1, rowPx);
  const first = Math.min(count, Math.max(0, Math.floor(scrollTop / h) - overscan));
  const last = Math.min(count, Math.max(first, Math.ceil((scrollTop + viewPx) / h) + overscan));
  return { first, last, before: first * h, after: (count - last) * h };
}
