/** The colour scheme: follow the system, or a fixed light or dark choice. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'seam.theme';
const ORDER: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** The theme switch, stored locally and applied as `data-theme` on the root element. */
export class ThemeState {
  choice = $state<ThemeChoice>('system');

  constructor(private readonly storage: Storage) {
    const v = storage.getItem(KEY);
    this.choice = v === 'light' || v === 'dark' ? v : 'system';
    this.apply();
  }

  /** Moves to the next choice: system → light → dark → system. */
  next(): void {
    this.choice = ORDER[(ORDER.indexOf(this.choice) + 1) % ORDER.length] ?? 'system';
    this.storage.setItem(KEY, this.choice);
    this.apply();
  }

  private apply(): void {
    if (this.choice === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', this.choice);
  }
}
