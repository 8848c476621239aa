import { cleanName, loadIdentity, newIdentityId, pickColor, saveIdentity, type Identity } from '../room/identity';

/** The local person, read from and written to browser storage. */
export class IdentityState {
  current = $state<Identity | null>(null);

  constructor(private readonly storage: Storage) {
    this.current = loadIdentity(storage);
  }

  /** Sets the name and colour; returns false for an empty name. */
  set(name: string, color: string): boolean {
    const clean = cleanName(name);
    if (!clean) return false;
    const next: Identity = { id: this.current?.id ?? newIdentityId(), name: clean, color };
    saveIdentity(this.storage, next);
    this.current = next;
    return true;
  }

  /** A suggested colour for the first visit. */
  suggestColor(): string {
    return this.current?.color ?? pickColor();
  }
}
